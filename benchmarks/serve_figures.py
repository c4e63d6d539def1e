"""The figures a load run reports (benchmarks/serve_faults.py): percentiles, the deliveries slow
to publish by when they came, the jobs put back by why, PostgreSQL's costliest statements."""

from __future__ import annotations

import re
import statistics
from pathlib import Path
from typing import Any

from tests.ledger.pg_server import Server

from rubricate.ledger.pg_schema import connect


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    ordered = sorted(values)

    def at(share: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 1)

    return {
        "p50": round(statistics.median(ordered), 1),
        "p95": at(0.95),
        "p99": at(0.99),
        "max": round(ordered[-1], 1),
    }


def track_statements(server: Server) -> None:
    """Load pg_stat_statements (a restart) and start counting."""
    with connect(server.url()) as conn:
        conn.execute("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'")
    server.crash_restart()
    with connect(server.url()) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        conn.execute("SELECT pg_stat_statements_reset()")


def top_statements(url: str, count: int = 12) -> list[dict[str, Any]]:
    """The statements PostgreSQL spent the most time executing (a function's with its call)."""
    with connect(url) as conn:
        rows = conn.execute(
            "SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 160), calls,"
            " round(total_exec_time::numeric, 1), round(total_plan_time::numeric, 1)"
            " FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT %s",
            (count,),
        ).fetchall()
    return [
        {"query": q, "calls": n, "exec_ms": float(e), "plan_ms": float(p)} for q, n, e, p in rows
    ]


def slow_by_bucket(
    spans: list[tuple[float, float]], began: float, over: float = 1.0, width: int = 10
) -> dict[str, int]:
    """How many deliveries took more than `over` seconds from received to published, by the
    `width`-second slice of the run they were received in (to line them up with `faults`)."""
    buckets: dict[int, int] = {}
    for received, published in spans:
        if published - received > over:
            slot = int((received - began) // width) * width
            buckets[slot] = buckets.get(slot, 0) + 1
    return {f"{slot}-{slot + width}": count for slot, count in sorted(buckets.items())}


def put_back(logs: Path) -> dict[str, int]:
    """How many jobs the workers' logs say were put back, by why (`gone`: the liveness lock
    was free; `silent`: the heartbeat aged; `unregistered`)."""
    text = "".join(log.read_text(errors="replace") for log in sorted(logs.glob("*.log")))
    found = re.findall(r"put back: its worker is (\w+)", text)
    return {why: found.count(why) for why in sorted(set(found))}
