"""An org-wide reputation fold from the PostgreSQL ledger.

Run: `python benchmarks/pg_fold.py --database-url URL [--events 1000000] [--chunk 100000]
[--repeat 3]` against a migrated database (`rubricate db migrate`). The ledger benchmark's jobs
(five events each, up to 500 authors, in the organisation `o`) are imported in chunks, each one
transaction that inserts the events and refreshes their jobs' facts and their authors' tallies
(skipped when the database already holds that many of the organisation's events: a second run
times the fold alone); then `reputation --org o` is timed: one tally per author read and
`reputation.json` made from them. With `--check`, the same document is also folded from every
job's facts (`rubricate_jobs`) and must be identical. Prints one JSON object: seconds (wall, and
this process's CPU; for the import's chunks also PostgreSQL's) and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bench_ledger import _job
from pg_write import server_cpu

from rubricate.ledger.pg_facts import FACT_COLUMNS, facts_from_row
from rubricate.ledger.pg_store import PostgresStore, Scope
from rubricate.ledger.reputation import LedgerCounts, reputation_document
from rubricate.ledger.reputation_config import ReputationConfig


def load(store: PostgresStore, events: int, chunk: int) -> dict[str, Any]:
    """Import `events` events in chunks; the time it took, how many were added, and each
    chunk's wall and CPU seconds (this process's, and PostgreSQL's when it runs on this host)."""
    jobs = max(1, events // 5)
    per_chunk = max(1, chunk // 5)
    started, added, chunks = time.perf_counter(), 0, []
    pg = server_cpu(store.conn)
    for first in range(1, jobs + 1, per_chunk):
        batch = [
            e for pr in range(first, min(jobs, first + per_chunk - 1) + 1) for e in _job(pr, jobs)
        ]
        wall, cpu, pg_cpu = time.perf_counter(), time.process_time(), pg()
        added += store.append(batch).added
        pg_after = pg()
        chunks.append(
            {
                "wall": round(time.perf_counter() - wall, 2),
                "python_cpu": round(time.process_time() - cpu, 2),
                "postgres_cpu": None
                if pg_cpu is None or pg_after is None
                else round(pg_after - pg_cpu, 2),
            }
        )
    return {
        "import_seconds": round(time.perf_counter() - started, 2),
        "added": added,
        "chunks": chunks,
    }


def from_jobs(store: PostgresStore) -> dict[str, Any]:
    """`reputation.json` of the organisation folded from every job's facts instead."""
    condition, params = store.scope.where("rubricate_jobs")
    cursor = store.conn.cursor(binary=True)
    cursor.execute(f"SELECT {FACT_COLUMNS} FROM rubricate_jobs WHERE {condition}", params)
    facts = [facts_from_row(row) for row in cursor]
    condition, params = store.scope.where()
    row = store.conn.execute(
        f"SELECT count(*), max(at) FROM rubricate_events WHERE {condition}", params
    ).fetchone()
    count, newest = (0, None) if row is None else row
    return reputation_document(facts, ReputationConfig(), LedgerCounts(int(count), 0, 0, newest))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--chunk", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--check", action="store_true", help="compare with a fold of the jobs")
    args = parser.parse_args()
    results: dict[str, Any] = {"events": args.events}
    with PostgresStore(args.database_url, scope=Scope(org="o")) as store:
        held = store.conn.execute("SELECT count(*) FROM rubricate_events WHERE owner = 'o'")
        if (held.fetchone() or (0,))[0] < args.events:
            results.update(load(store, args.events, args.chunk))
        walls, cpus = [], []
        for _ in range(args.repeat):
            started, cpu = time.perf_counter(), time.process_time()
            document = store.reputation()
            walls.append(round(time.perf_counter() - started, 3))
            cpus.append(round(time.process_time() - cpu, 3))
        if args.check:
            results["same_as_jobs_fold"] = from_jobs(store) == document
    results["fold_seconds"] = [min(walls), max(walls)]
    results["fold_cpu_seconds"] = [min(cpus), max(cpus)]
    results["load_average"] = [round(x, 2) for x in os.getloadavg()]
    results["jobs"] = document["ledger"]["jobs"]
    results["events_folded"] = document["ledger"]["events"]
    results["authors"] = sum(len(r["authors"]) for r in document["repos"].values())
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
