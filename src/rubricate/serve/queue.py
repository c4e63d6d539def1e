"""The job queue: procrastinate in the ledger's own PostgreSQL (shell; no broker).

Jobs are queued with procrastinate's SQL function inside the caller's transaction, so a webhook
delivery and its job, or a job's ledger events and its publish job, commit together or not at all.
Every job of one PR carries the PR's lock, so they run one at a time in the order they were
queued; a publish job also carries a queueing lock, so a PR has at most one waiting.

procrastinate itself is imported by the worker (`rubricate.serve.tasks`), never by the receiver.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

QUEUE = "rubricate"
HANDLE = "rubricate.handle"
PUBLISH = "rubricate.publish"
RETRY_STALLED = "rubricate.retry_stalled"
SWEEP = "rubricate.sweep"
RECONCILE = "rubricate.reconcile"


def pr_lock(repo: str, pr: int) -> str:
    """The lock every job of one PR holds."""
    return f"{repo}#{pr}"


def defer(
    conn: psycopg.Connection[Any],
    task: str,
    args: dict[str, Any],
    *,
    lock: str | None = None,
    queueing_lock: str | None = None,
    at: datetime | None = None,
) -> bool:
    """Queue a job in the connection's open transaction; False when a job with the same
    queueing lock is already waiting (nothing is queued then)."""
    import psycopg

    try:
        with conn.transaction():  # a savepoint: a refused queueing lock keeps the outer work
            conn.execute(
                "SELECT procrastinate_defer_jobs_v1(ARRAY[ROW(%s, %s, 0, %s, %s, %s::jsonb, %s)"
                "::procrastinate_job_to_defer_v1])",
                (QUEUE, task, lock, queueing_lock, json.dumps(args), at),
            )
    except psycopg.errors.UniqueViolation:
        return False
    return True


def queue_installed(conn: psycopg.Connection[Any]) -> bool:
    """True when procrastinate's tables exist."""
    row = conn.execute("SELECT to_regclass('procrastinate_jobs')").fetchone()
    return row is not None and row[0] is not None


def migrate_queue(conn: psycopg.Connection[Any]) -> bool:
    """Create procrastinate's tables when missing; True when it did."""
    if queue_installed(conn):
        return False
    from procrastinate.schema import SchemaManager

    with conn.transaction():
        conn.execute(SchemaManager.get_schema().encode())
    return True
