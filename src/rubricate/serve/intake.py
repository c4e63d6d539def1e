"""One webhook delivery in: classify it, then store it and queue its job in one transaction
(shell: PostgreSQL).

A delivery is stored under its `X-GitHub-Delivery` GUID, so GitHub's redelivery of one already
stored inserts nothing and queues nothing. What the bot ignores (by the same `parse_event` the
Action uses) is stored as `skipped`, with no job and no API call; a payload the bot cannot read
as `rejected`, with the reason. Only PR, comment and review events are queued: merge-queue groups
and graders runs stay with the Action's workflow (see docs/app.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rubricate.bot.events import CommentEvent, Ignored, PullRequestEvent, ReviewEvent
from rubricate.bot.payload import parse_event
from rubricate.errors import PayloadError
from rubricate.serve.queue import DEFER_CALL, HANDLE, QUEUE, pr_lock

if TYPE_CHECKING:
    import psycopg


@dataclass(frozen=True)
class Delivery:
    """A verified delivery, classified: `state` is `queued`, `skipped` or `rejected`."""

    guid: str
    event: str
    body: bytes
    state: str
    reason: str | None = None
    action: str | None = None
    installation: int | None = None
    repo: str | None = None
    pr: int | None = None


def classify(guid: str, event: str, body: bytes) -> Delivery:
    """What the worker will do with the delivery, decided from its payload alone (pure)."""
    try:
        payload = json.loads(body)
    except (ValueError, RecursionError):
        return Delivery(guid, event, body, "rejected", "the body is not JSON")
    if not isinstance(payload, dict):
        return Delivery(guid, event, body, "rejected", "the body is not a JSON object")
    action = payload.get("action") if isinstance(payload.get("action"), str) else None
    installation = _installation(payload)
    try:
        parsed = parse_event(event, payload)
    except PayloadError as exc:
        return Delivery(guid, event, body, "rejected", str(exc), action, installation)
    if isinstance(parsed, Ignored):
        return Delivery(guid, event, body, "skipped", parsed.reason, action, installation)
    if not isinstance(parsed, PullRequestEvent | CommentEvent | ReviewEvent):
        reason = f"{event} is handled by the Action's workflow, not by serve"
        return Delivery(guid, event, body, "skipped", reason, action, installation, parsed.repo)
    if installation is None:
        reason = "the payload names no App installation"
        return Delivery(guid, event, body, "rejected", reason, action, None, parsed.repo)
    return Delivery(
        guid, event, body, "queued", None, action, installation, parsed.repo, parsed.number
    )


def _installation(payload: dict[str, Any]) -> int | None:
    found = payload.get("installation")
    value = found.get("id") if isinstance(found, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def store(conn: psycopg.Connection[Any], delivery: Delivery) -> bool:
    """Insert the delivery and queue its job, atomically; False for a duplicate (then nothing
    is written).

    Both go in one statement: on an autocommit connection it is its own transaction, committed
    before its answer comes back (one round trip, not seven); on a connection inside a
    transaction it is part of it."""
    values = (
        delivery.guid,
        delivery.event,
        delivery.action,
        delivery.installation,
        delivery.repo,
        delivery.pr,
        delivery.state,
        delivery.reason,
        delivery.body,
    )
    if delivery.state != "queued":
        return conn.execute(_INSERT, values).fetchone() is not None
    assert delivery.repo is not None
    assert delivery.pr is not None
    lock = pr_lock(delivery.repo, delivery.pr)
    job = (QUEUE, HANDLE, 0, lock, None, json.dumps({"guid": delivery.guid}), None)
    return conn.execute(_INSERT_AND_QUEUE, (*values, *job)).fetchone() is not None


_INSERT = (
    "INSERT INTO rubricate_deliveries"
    " (guid, event, action, installation, repo, pr, state, reason, body)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
    " ON CONFLICT (guid) DO NOTHING RETURNING guid"
)
_INSERT_AND_QUEUE = f"WITH stored AS ({_INSERT}) SELECT {DEFER_CALL} FROM stored"
"""The job is queued once for each row inserted: once for a new delivery, never for a
duplicate."""
