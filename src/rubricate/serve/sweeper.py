"""The sweeper: deliveries GitHub failed to hand over, asked for again (shell: GitHub App API,
PostgreSQL).

GitHub keeps an App's deliveries for three days and never retries one on its own. The sweeper
lists the failed ones (`GET /app/hook/deliveries?status=failure`, newest first, as the App), and
redelivers (`POST /app/hook/deliveries/{id}/attempts`) each GUID the database never stored, once
per sweep and at most `MAX_REDELIVERIES` a sweep. A redelivery reaches `POST /webhook` like the
first attempt; one that arrives twice is answered 200 and stored once.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from rubricate.github.client import api_call
from rubricate.ledger.times import read_time

if TYPE_CHECKING:
    import psycopg
    from github.Requester import Requester

KEPT = timedelta(days=3)
"""How long GitHub keeps a delivery."""
MAX_REDELIVERIES = 100
MAX_PAGES = 50


def failed_deliveries(requester: Requester, since: datetime) -> dict[str, int]:
    """GUID → the id of its newest failed attempt, for attempts since `since`."""
    found: dict[str, int] = {}
    cursor: str | None = None
    for _page in range(MAX_PAGES):
        params: dict[str, Any] = {"per_page": 100, "status": "failure"}
        if cursor:
            params["cursor"] = cursor
        headers, items = api_call(
            "GET /app/hook/deliveries",
            lambda p=params: requester.requestJsonAndCheck(  # type: ignore[misc]
                "GET", "/app/hook/deliveries", parameters=p
            ),
        )
        old = False
        for item in items or []:
            if read_time(item["delivered_at"]) < since:
                old = True
                break
            found.setdefault(str(item["guid"]), int(item["id"]))
        cursor = _next_cursor(headers.get("link", ""))
        if old or not cursor:
            break
    return found


def _next_cursor(link: str) -> str | None:
    for part in link.split(","):
        if 'rel="next"' in part:
            url = part.split(";")[0].strip().strip("<>")
            values = parse_qs(urlsplit(url).query).get("cursor")
            return values[0] if values else None
    return None


def never_stored(conn: psycopg.Connection[Any], guids: list[str]) -> list[str]:
    """The GUIDs the database does not hold, in the given order."""
    rows = conn.execute(
        "SELECT guid FROM rubricate_deliveries WHERE guid = ANY(%s)", (guids,)
    ).fetchall()
    stored = {guid for (guid,) in rows}
    return [guid for guid in guids if guid not in stored]


def sweep(conn: psycopg.Connection[Any], requester: Requester, now: datetime) -> list[str]:
    """Redeliver every failed delivery never stored; their GUIDs."""
    failed = failed_deliveries(requester, now - KEPT)
    missing = never_stored(conn, list(failed))[:MAX_REDELIVERIES]
    for guid in missing:
        path = f"/app/hook/deliveries/{failed[guid]}/attempts"
        api_call(f"POST {path}", lambda p=path: requester.requestJsonAndCheck("POST", p))  # type: ignore[misc]
    return missing
