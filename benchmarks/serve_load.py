"""Signed webhook deliveries posted concurrently to `rubricate serve`'s receiver; prints JSON.

    python benchmarks/serve_load.py [--database-url URL] [--count N] [--concurrency C]
                                    [--duplicates FRACTION]
    python benchmarks/serve_load.py --rate N --minutes M [--workers W] [--worker-kills K]
                                    [--receiver-kills R] [--pg-restarts P] …

The second form is the whole service under faults (`benchmarks/serve_faults.py`).

Without `--database-url` it starts a throw-away PostgreSQL as the tests do (initdb in a
temporary folder, fsync off). It reports the acceptance latency (p50/p95/p99/max, ms), the
deliveries acknowledged a second, and checks that every acknowledged delivery is stored exactly
once with exactly one job queued for it. The receiver runs in this process (uvicorn on a
loopback port); no worker runs, so this measures intake alone.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from serve_faults import add_arguments, run_faults
from tests.action.payloads import pull_request_event
from tests.ledger.pg_server import bin_dir, free_port, start

from rubricate.ledger.pg_schema import connect, migrate
from rubricate.serve.queue import migrate_queue
from rubricate.serve.signature import sign

SECRET = b"serve-load secret"
AT = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


@contextmanager
def database(url: str | None) -> Iterator[str]:
    """The given database, or a fresh local server's."""
    if url is not None:
        yield url
        return
    binaries = bin_dir()
    if binaries is None:
        raise SystemExit("no PostgreSQL binaries: pass --database-url or install postgresql")
    server = start(binaries)
    try:
        yield server.url()
    finally:
        server.stop()


@contextmanager
def receiver(url: str, pool_size: int) -> Iterator[str]:
    """The receiver on a free loopback port."""
    import uvicorn
    from psycopg_pool import ConnectionPool

    from rubricate.serve.receiver import create_app

    pool: ConnectionPool[Any] = ConnectionPool(
        url, min_size=1, max_size=pool_size, kwargs={"autocommit": True}, open=False
    )
    pool.open(wait=True)
    port = free_port()
    app = create_app(pool, [SECRET], max_body=25 * 1024 * 1024)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(500):
        if server.started:
            break
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        pool.close()


def deliveries(count: int, duplicates: float, seed: int) -> list[tuple[str, bytes]]:
    """`count` (GUID, body) pairs over many PRs, a fraction of them repeats of earlier ones."""
    rng = random.Random(seed)
    sent: list[tuple[str, bytes]] = []
    for n in range(count):
        if sent and rng.random() < duplicates:
            sent.append(rng.choice(sent))
            continue
        payload = pull_request_event(
            "opened",
            number=1 + n % 200,
            author=f"agent-{n % 37}",
            head_sha=f"{n:040x}",
            base_sha="b" * 40,
            created=AT,
            at=AT,
        )
        payload["installation"] = {"id": 77}
        sent.append((str(uuid.uuid4()), json.dumps(payload).encode()))
    return sent


def post(session: requests.Session, base: str, guid: str, body: bytes) -> tuple[int, float]:
    headers = {
        "Content-Type": "application/json",
        "X-GitHub-Event": "pull_request",
        "X-GitHub-Delivery": guid,
        "X-Hub-Signature-256": sign(SECRET, body),
    }
    began = time.perf_counter()
    answer = session.post(f"{base}/webhook", data=body, headers=headers, timeout=60)
    return answer.status_code, (time.perf_counter() - began) * 1000


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run(args: argparse.Namespace) -> dict[str, Any]:
    sent = deliveries(args.count, args.duplicates, args.seed)
    with database(args.database_url) as url:
        with connect(url) as conn:
            migrate(conn)
            migrate_queue(conn)
            conn.execute("TRUNCATE rubricate_deliveries")
            conn.execute("DELETE FROM procrastinate_jobs WHERE task_name = 'rubricate.handle'")
        local = threading.local()
        with receiver(url, args.concurrency) as base:

            def one(item: tuple[str, bytes]) -> tuple[str, int, float]:
                if not hasattr(local, "session"):
                    local.session = requests.Session()
                status, ms = post(local.session, base, *item)
                return item[0], status, ms

            began = time.perf_counter()
            with ThreadPoolExecutor(args.concurrency) as pool:
                results = list(pool.map(one, sent))
            elapsed = time.perf_counter() - began
        with connect(url) as conn:
            stored = dict(
                conn.execute("SELECT guid, count(*) FROM rubricate_deliveries GROUP BY guid")
            )
            jobs = dict(
                conn.execute(
                    "SELECT args->>'guid', count(*) FROM procrastinate_jobs"
                    " WHERE task_name = 'rubricate.handle' GROUP BY 1"
                )
            )
    acked = {guid for guid, status, _ in results if status in (200, 202)}
    latencies = [ms for _, _, ms in results]
    statuses: dict[str, int] = {}
    for _, status, _ in results:
        statuses[str(status)] = statuses.get(str(status), 0) + 1
    return {
        "posted": len(results),
        "distinct": len({guid for guid, _ in sent}),
        "concurrency": args.concurrency,
        "statuses": statuses,
        "seconds": round(elapsed, 3),
        "deliveries_per_second": round(len(results) / elapsed, 1),
        "accept_ms": {
            "p50": round(statistics.median(latencies), 2),
            "p95": round(percentile(latencies, 0.95), 2),
            "p99": round(percentile(latencies, 0.99), 2),
            "max": round(max(latencies), 2),
        },
        "acknowledged_lost": sorted(acked - set(stored))[:10],
        "stored_more_than_once": sum(1 for n in stored.values() if n != 1),
        "acknowledged_without_exactly_one_job": sum(1 for g in acked if jobs.get(g) != 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database-url")
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--duplicates", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=24)
    add_arguments(parser)
    args = parser.parse_args()
    if args.rate is not None:
        report = run_faults(args)
        print(json.dumps(report, indent=2))
        held = not report["lost"] and not report["duplicate_ledger_events"]
        drained = not any(report["left_at_the_end"].values())
        return 0 if held and drained and not report["duplicate_comments"] else 1
    report = run(args)
    print(json.dumps(report, indent=2))
    ok = not report["acknowledged_lost"] and not report["stored_more_than_once"]
    return 0 if ok and not report["acknowledged_without_exactly_one_job"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
