"""Deliveries for worker tests: payloads from the scenario's repositories, stored as the receiver
stores them, and what the database then holds."""

from __future__ import annotations

import json
from typing import Any

from rubricate.ledger.pg_schema import connect
from rubricate.serve.intake import classify, store
from tests.serve.conftest import INSTALLATION, WorkerSetup


def deliver(world: WorkerSetup, guid: str, event: str, payload: dict[str, Any]) -> str:
    """Store a delivery as the receiver would; its GUID."""
    payload["installation"] = {"id": INSTALLATION}
    with connect(world.db_url) as conn:
        store(conn, classify(guid, event, json.dumps(payload).encode()))
    return guid


def pr_delivery(world: WorkerSetup, guid: str, action: str = "opened", **extra: Any) -> str:
    """A pull_request delivery for the scenario's current head."""
    return deliver(world, guid, "pull_request", world.scenario.pr_payload(action, **extra))


def comment_delivery(world: WorkerSetup, guid: str, actor: str, body: str) -> str:
    """A new comment on the PR, delivered."""
    return deliver(world, guid, "issue_comment", world.scenario.comment_payload(actor, body))


def rows(world: WorkerSetup, sql: str) -> list[tuple[Any, ...]]:
    """The rows a query returns."""
    with connect(world.db_url) as conn:
        return [tuple(row) for row in conn.execute(sql.encode()).fetchall()]


def event_ids(world: WorkerSetup) -> list[str]:
    """The ledger's event ids, in insertion order."""
    return [row[0] for row in rows(world, "SELECT id FROM rubricate_events ORDER BY seq")]
