"""The job queue: procrastinate in the ledger's own PostgreSQL (shell; no broker).

Jobs are queued with procrastinate's SQL function inside the caller's transaction, so a webhook
delivery and its job, or a job's ledger events and its publish job, commit together or not at all.
Every job of one PR carries the PR's lock, so they run one at a time in the order they were
queued; a publish job also carries a queueing lock, so a PR has at most one waiting, and a higher
priority (`PUBLISH_PRIORITY`), so under a backlog the views of what was handled go out before more
deliveries are handled.

procrastinate itself is imported by the worker (`rubricate.serve.tasks`), never by the receiver.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from rubricate.errors import Busy

if TYPE_CHECKING:
    import psycopg

QUEUE = "rubricate"
HANDLE = "rubricate.handle"
PUBLISH = "rubricate.publish"
SWEEP = "rubricate.sweep"
RECONCILE = "rubricate.reconcile"
PUBLISH_PRIORITY = 1
"""Publish jobs run before handle jobs (priority 0) that are ready at the same time."""


def pr_lock(repo: str, pr: int) -> str:
    """The lock every job of one PR holds."""
    return f"{repo}#{pr}"


def hold_pr(conn: psycopg.Connection[Any], repo: str, pr: int) -> None:
    """Take the PR's advisory lock for the job, or raise `Busy`.

    procrastinate's lock already runs a PR's jobs one at a time; this one also holds when a job
    was put back as stalled while the worker running it is in fact alive (a heartbeat missed
    under load), so two runs of one PR never overlap."""
    hold(conn, pr_lock(repo, pr))


def hold(conn: psycopg.Connection[Any], lock: str) -> None:
    """Take the advisory lock named `lock` for the job (`held`), or raise `Busy`."""
    if not held(conn, lock):
        raise Busy(f"another job holding {lock} is running: retried later")


def held(conn: psycopg.Connection[Any], lock: str) -> bool:
    """Take the advisory lock named `lock` for the job; False when another session holds it.

    The lock lasts until the job gives its connection back to the pool, which releases it
    (`rubricate.serve.connections`), or until the connection closes: a killed worker's locks go
    with it. The periodic tasks take one named for their task (`SWEEP`, `RECONCILE`), so a run
    put back as stalled while the run it replaced still goes does not overlap it."""
    row = conn.execute(
        "SELECT pg_try_advisory_lock(%s, hashtext(%s))", (_LOCK_SPACE, lock)
    ).fetchone()
    return bool(row and row[0])


_LOCK_SPACE = 24_2024
"""The first key of rubricate's advisory locks (the second is the hash of the lock's name)."""


DEFER_CALL = (
    "procrastinate_defer_jobs_v1(ARRAY[ROW(%s, %s, %s, %s, %s, %s::jsonb, %s)"
    "::procrastinate_job_to_defer_v1])"
)
"""procrastinate's SQL call that queues one job; its parameters: queue, task, priority, lock,
queueing lock, arguments (JSON text), time to run at."""


def defer(
    conn: psycopg.Connection[Any],
    task: str,
    args: dict[str, Any],
    *,
    lock: str | None = None,
    queueing_lock: str | None = None,
    at: datetime | None = None,
    priority: int = 0,
) -> bool:
    """Queue a job in the connection's open transaction; False when a job with the same
    queueing lock is already waiting (nothing is queued then). Of the jobs ready, those of
    higher `priority` run first, and, under one lock, before the lock's earlier jobs."""
    import psycopg

    try:
        with conn.transaction():  # a savepoint: a refused queueing lock keeps the outer work
            conn.execute(
                f"SELECT {DEFER_CALL}",
                (QUEUE, task, priority, lock, queueing_lock, json.dumps(args), at),
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
