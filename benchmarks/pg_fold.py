"""An org-wide reputation fold from the PostgreSQL ledger.

Run: `python benchmarks/pg_fold.py --database-url URL [--events 1000000] [--chunk 100000]
[--repeat 3]` against a migrated, empty database (`rubricate db migrate`). The ledger
benchmark's jobs (five events each, up to 500 authors, in the organisation `o`) are imported in
chunks, each one transaction that inserts the events and refreshes their jobs' facts; then
`reputation --org o` is timed: the facts of every job read and folded into `reputation.json`.
Prints one JSON object (seconds).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bench_ledger import _job

from rubricate.ledger.pg_store import PostgresStore, Scope


def load(store: PostgresStore, events: int, chunk: int) -> dict[str, Any]:
    """Import `events` events in chunks; the time it took and how many were added."""
    jobs = max(1, events // 5)
    per_chunk = max(1, chunk // 5)
    started, added = time.perf_counter(), 0
    for first in range(1, jobs + 1, per_chunk):
        batch = [
            e for pr in range(first, min(jobs, first + per_chunk - 1) + 1) for e in _job(pr, jobs)
        ]
        added += store.append(batch).added
    return {"import_seconds": round(time.perf_counter() - started, 2), "added": added}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--chunk", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    results: dict[str, Any] = {"events": args.events}
    with PostgresStore(args.database_url, scope=Scope(org="o")) as store:
        results.update(load(store, args.events, args.chunk))
        times = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            document = store.reputation()
            times.append(round(time.perf_counter() - started, 3))
    results["fold_seconds"] = [min(times), max(times)]
    results["jobs"] = document["ledger"]["jobs"]
    results["authors"] = sum(len(r["authors"]) for r in document["repos"].values())
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
