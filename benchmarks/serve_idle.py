"""What idle workers cost: CPU of the workers and of PostgreSQL, and the database's transactions
a second, while `--workers` worker processes of `--concurrency` slots wait with an empty queue
(each looks every second for a job whose retry time has come, and listens for new jobs).

    python benchmarks/serve_idle.py --workers 4 --concurrency 4 --seconds 60

Prints JSON. PostgreSQL from Debian's package, started in a temporary folder; the fake GitHub
answers the sweeper that runs as a worker starts.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from proc_cpu import cpu_of, postmaster, tree_cpu
from serve_faults import app_key
from serve_figures import top_statements, track_statements
from tests.action.fake_github import FakeGitHub
from tests.action.scenario import Scenario
from tests.ledger.pg_server import bin_dir, start
from tests.serve.github_http import Routes, serving
from tests.serve.processes import Workers, add_app_routes, stop, worker_env

from rubricate.ledger.pg_schema import connect, migrate
from rubricate.serve.queue import migrate_queue


def commits(url: str) -> int:
    """The database's committed transactions so far."""
    with connect(url) as conn:
        row = conn.execute(
            "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
        ).fetchone()
    return int(row[0]) if row else 0


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """Start PostgreSQL and the workers, let them settle, then measure `--seconds` of idling."""
    binaries = bin_dir()
    if binaries is None:
        raise SystemExit("no PostgreSQL binaries: install postgresql")
    with tempfile.TemporaryDirectory(prefix="rubricate-idle-") as tmp:
        folder = Path(tmp)
        server = start(binaries)
        try:
            url = server.url()
            with connect(url) as conn:
                migrate(conn)
                migrate_queue(conn)
            if args.statements:
                track_statements(server)
            routes = Routes()
            fake = FakeGitHub(routes)  # type: ignore[arg-type]
            add_app_routes(routes)
            (folder / "repos").mkdir()
            scenario = Scenario(folder / "repos", fake)
            with serving(routes) as github:
                env = worker_env(github, fake, app_key(folder), scenario.remote)
                (folder / "logs").mkdir()
                workers = Workers(url, env, folder / "logs", stalled_after=args.stalled_after)
                running = [workers.start(args.concurrency, f"w{n}") for n in range(args.workers)]
                try:
                    time.sleep(args.settle)
                    pg = postmaster(server.root / "data")
                    before = [cpu_of(p.pid) for p in running], tree_cpu(pg), commits(url)
                    began = time.monotonic()
                    time.sleep(args.seconds)
                    seconds = time.monotonic() - began
                    after = [cpu_of(p.pid) for p in running], tree_cpu(pg), commits(url)
                    statements = top_statements(url, 8) if args.statements else []
                finally:
                    for process in running:
                        stop(process)
        finally:
            server.stop()
    worker_cpu = sum(after[0]) - sum(before[0])
    return {
        "workers": args.workers,
        "concurrency": args.concurrency,
        "seconds": round(seconds, 1),
        "worker_cpu_percent_each": round(100 * worker_cpu / seconds / args.workers, 2),
        "postgresql_cpu_percent": round(100 * (after[1] - before[1]) / seconds, 2),
        "transactions_per_second": round((after[2] - before[2]) / seconds, 1),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    } | ({"postgresql_top_statements": statements} if args.statements else {})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--stalled-after", type=float, default=30.0, help="the workers' --stalled-after"
    )
    parser.add_argument("--settle", type=float, default=15.0, help="seconds before measuring")
    parser.add_argument(
        "--statements", action="store_true", help="list PostgreSQL's busiest statements"
    )
    print(json.dumps(measure(parser.parse_args()), indent=2))


if __name__ == "__main__":
    main()
