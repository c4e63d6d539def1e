"""The sweeper asks GitHub for the deliveries it failed to hand over and redelivers those the
database never stored (exchanges checked against GitHub's OpenAPI description)."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from typing import Any

import requests

from rubricate.ledger.pg_schema import connect
from rubricate.serve.intake import classify, store
from rubricate.serve.sweeper import sweep
from tests.serve.conftest import WorkerSetup

NOW = datetime(2026, 3, 5, 12, 0, tzinfo=timezone.utc)
API = r"https://api\.github\.com(?::443)?"


def item(delivery_id: int, guid: str, hours_ago: float) -> dict[str, Any]:
    at = (NOW - timedelta(hours=hours_ago)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {
        "id": delivery_id,
        "guid": guid,
        "delivered_at": at,
        "redelivery": False,
        "duration": 10.0,
        "status": "Invalid HTTP Response: 503",
        "status_code": 503,
        "event": "pull_request",
        "action": "opened",
        "installation_id": 77,
        "repository_id": 600,
    }


def test_failed_deliveries_never_stored_are_redelivered_once(worker_env: WorkerSetup) -> None:
    rsps = worker_env.scenario.fake.rsps
    pages = {
        None: [item(11, "g-new", 1), item(10, "g-stored", 2), item(9, "g-new", 3)],
        "c2": [item(8, "g-older", 30), item(7, "g-gone", 80)],
    }

    def listing(request: requests.PreparedRequest) -> tuple[int, dict[str, str], str]:
        cursor = dict(re.findall(r"[?&]([^=&]+)=([^&]*)", str(request.url))).get("cursor")
        headers = {"Content-Type": "application/json"}
        if cursor is None:
            headers["Link"] = '<https://api.github.com/app/hook/deliveries?cursor=c2>; rel="next"'
        return 200, headers, json.dumps(pages[cursor])

    rsps.add_callback("GET", re.compile(rf"{API}/app/hook/deliveries\?.*$"), callback=listing)
    redelivered: list[str] = []

    def attempt(request: requests.PreparedRequest) -> tuple[int, dict[str, str], str]:
        redelivered.append(str(request.url).rsplit("/", 2)[-2])
        return 202, {"Content-Type": "application/json"}, "{}"

    rsps.add_callback(
        "POST", re.compile(rf"{API}/app/hook/deliveries/(\d+)/attempts$"), callback=attempt
    )
    with connect(worker_env.db_url) as conn:
        store(conn, classify("g-stored", "ping", b'{"zen": "z"}'))
        done = sweep(conn, worker_env.ctx.tokens.integration().requester, NOW)
    assert done == ["g-new", "g-older"]  # g-gone is past GitHub's three days
    assert redelivered == ["11", "8"]  # each GUID's newest failed attempt
