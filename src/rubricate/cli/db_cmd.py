"""`rubricate db migrate`: create or update the PostgreSQL ledger's tables (shell: CLI)."""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(subparsers: Any) -> None:
    """Register `db` and its `migrate` subcommand."""
    parser = subparsers.add_parser("db", help="prepare the PostgreSQL database")
    commands = parser.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    migrate = commands.add_parser("migrate", help="create or update rubricate's tables")
    migrate.add_argument("--database-url", required=True, metavar="URL", help="the database")
    migrate.set_defaults(handler=run_migrate)


def run_migrate(args: argparse.Namespace) -> int:
    """Apply the migrations the database lacks, and create the job queue's tables (when the
    `server` extra is installed)."""
    import importlib.util

    from rubricate.ledger.pg_facts import fill_tallies
    from rubricate.ledger.pg_schema import MIGRATIONS, connect, migrate

    with connect(args.database_url) as conn:
        applied = migrate(conn, then={3: fill_tallies})
        queue = importlib.util.find_spec("procrastinate") is not None
        if queue:
            from rubricate.serve.queue import migrate_queue

            queue_made = migrate_queue(conn)
    done = f"applied {', '.join(map(str, applied))}" if applied else "nothing to apply"
    print(f"database at migration {len(MIGRATIONS)} ({done})")
    if queue:
        print(f"job queue {'created' if queue_made else 'present'}")
    return 0
