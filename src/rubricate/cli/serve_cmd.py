"""`rubricate serve` (the webhook receiver, optionally with a worker) and `rubricate worker`
(shell: CLI). See docs/app.md."""

from __future__ import annotations

import argparse
import os
from typing import Any

from rubricate.errors import ConfigError


def add_serve_parser(subparsers: Any) -> None:
    """Register `serve`."""
    parser = subparsers.add_parser(
        "serve",
        help="receive the GitHub App's webhooks into PostgreSQL",
        description="Receive the App's webhook deliveries: each is checked, stored and queued "
        "in one transaction before GitHub gets its answer. GET /healthz and GET /metrics too.",
    )
    parser.add_argument("--database-url", required=True, metavar="URL", help="the database")
    parser.add_argument("--app-id", required=True, metavar="N", help="the GitHub App's id")
    parser.add_argument(
        "--private-key-file", required=True, metavar="PEM", help="the App's private key"
    )
    parser.add_argument(
        "--webhook-secret-file",
        required=True,
        metavar="FILE",
        help="the webhook secret; one a line to rotate (any of them passes)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="default: 127.0.0.1")
    parser.add_argument("--port", type=int, default=8080, help="default: 8080")
    parser.add_argument(
        "--with-worker", action="store_true", help="run a worker in the same process"
    )
    parser.set_defaults(handler=run_serve)


def add_worker_parser(subparsers: Any) -> None:
    """Register `worker`."""
    parser = subparsers.add_parser(
        "worker",
        help="run the queued webhook jobs",
        description="Run the jobs `rubricate serve` queued: the same core as the Action, the "
        "ledger in PostgreSQL, the views published to GitHub. The App comes from "
        "RUBRICATE_APP_ID and RUBRICATE_APP_PRIVATE_KEY_FILE.",
    )
    parser.add_argument("--database-url", required=True, metavar="URL", help="the database")
    parser.add_argument(
        "--concurrency", type=int, default=4, metavar="N", help="jobs run at once (default: 4)"
    )
    parser.add_argument(
        "--stalled-after",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="put back the jobs of a worker silent this long (alive but hung, or cut off; a "
        "killed worker's jobs go back at once): default 30",
    )
    parser.add_argument(
        "--nice",
        type=int,
        default=0,
        metavar="N",
        help="run the jobs N steps lower in CPU priority (0-19), so a receiver on the same "
        "machine answers first: default 0",
    )
    parser.set_defaults(handler=run_worker)


def check_database(url: str) -> None:
    """The database is reachable and fully migrated (ledger and queue), else a clear error."""
    from rubricate.ledger.pg_schema import MIGRATIONS, connect, schema_version
    from rubricate.serve.queue import queue_installed

    with connect(url) as conn:
        if schema_version(conn) < len(MIGRATIONS) or not queue_installed(conn):
            raise ConfigError(
                "the database is not migrated: run `rubricate db migrate --database-url URL`"
            )


def run_serve(args: argparse.Namespace) -> int:
    """Start the receiver (and a worker with `--with-worker`) until stopped."""
    from rubricate.serve.app_auth import read_credentials
    from rubricate.serve.signature import read_secrets

    if not 0 < args.port < 65536:
        raise ConfigError(f"--port must be between 1 and 65535, not {args.port}")
    secrets = read_secrets(args.webhook_secret_file)
    api_url = os.environ.get("GITHUB_API_URL") or "https://api.github.com"
    credentials = read_credentials(args.app_id, args.private_key_file, api_url)
    check_database(args.database_url)
    from rubricate.serve.server import serve

    serve(args.database_url, secrets, credentials, args.host, args.port, args.with_worker)
    return 0


def run_worker(args: argparse.Namespace) -> int:
    """Run jobs until stopped."""
    from rubricate.serve.app_auth import credentials_from_env

    if args.concurrency < 1:
        raise ConfigError(f"--concurrency must be 1 or more, not {args.concurrency}")
    if not 1.0 <= args.stalled_after <= 3600.0:
        raise ConfigError(f"--stalled-after must be 1 to 3600 seconds, not {args.stalled_after}")
    if not 0 <= args.nice <= 19:
        raise ConfigError(f"--nice must be 0 to 19, not {args.nice}")
    credentials = credentials_from_env(os.environ)
    check_database(args.database_url)
    from rubricate.serve.server import work

    work(args.database_url, credentials, args.concurrency, args.stalled_after, args.nice)
    return 0
