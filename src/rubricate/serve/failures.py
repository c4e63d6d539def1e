"""Each job's failures, counted apart from procrastinate's attempts (shell: PostgreSQL).

procrastinate counts every run of a job as an attempt, whatever stopped it. A job put back by a
rate limit or by its installation's pace of writes (`RateLimited`), or because another job held
its PR's lock (`Busy`), has not failed: it waited its turn, and may wait many times in an hour
of heavy writing. Only the other failures (a 502, a bug) count toward `MAX_FAILURES`: they are
kept in `rubricate_job_failures` (migration 5) by job id, each counted in its own statement as
the job stops, and the row goes when the job succeeds or is given up; the sweeper drops the
rows of jobs that ended some other way (`prune`).

A failure the count cannot record (the database away, no connection free within `COUNT_WAIT`)
is not judged by procrastinate's attempts, which count the waits too: the job is tried again
after `UNCOUNTED_WAIT`, and given up only after `UNCOUNTED_MOST` runs in all.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any

from rubricate.errors import Busy, JobFailed, RateLimited

if TYPE_CHECKING:
    import psycopg

logger = logging.getLogger(__name__)

MAX_FAILURES = 8
"""Retries after ordinary failures before a job is given up (its ninth failure ends it)."""
WAITS = (RateLimited, Busy)
"""What puts a job back without counting as a failure."""
COUNT_WAIT = 5.0
"""Seconds a failing job waits for a connection to count its failure."""
UNCOUNTED_WAIT = 30
"""Seconds before a job whose failure could not be counted runs again."""
UNCOUNTED_MOST = 10 * MAX_FAILURES
"""Runs in all (waits included) after which a job whose failure could not be counted ends."""

Borrow = Callable[..., AbstractContextManager["psycopg.Connection[Any]"]]
"""How a job gets a database connection: `JobConnections.borrow`, given a `timeout`."""


def given_up(failures: int) -> bool:
    """True when a job with this many failures is not retried again."""
    return failures > MAX_FAILURES


def retry_after(failures: int) -> int:
    """Seconds before a job with this many failures runs again: 5, 10, 20 … up to 10 minutes."""
    return min(600, 5 << min(max(failures - 1, 0), 8))


def count(conn: psycopg.Connection[Any], job_id: int) -> int:
    """Record one more failure of the job; how many it has had."""
    row = conn.execute(
        "INSERT INTO rubricate_job_failures (job_id, failures) VALUES (%s, 1)"
        " ON CONFLICT (job_id) DO UPDATE"
        " SET failures = rubricate_job_failures.failures + 1 RETURNING failures",
        (job_id,),
    ).fetchone()
    if row is None:  # INSERT … RETURNING always returns its row
        raise RuntimeError(f"no failure count for job {job_id}")
    return int(row[0])


def forget(conn: psycopg.Connection[Any], job_id: int) -> None:
    """Drop the job's count (it succeeded, or it is given up)."""
    conn.execute("DELETE FROM rubricate_job_failures WHERE job_id = %s", (job_id,))


def prune(conn: psycopg.Connection[Any]) -> int:
    """Drop the counts of jobs no longer waiting or running (ended by an uncounted failure,
    aborted, or deleted); how many went."""
    gone = conn.execute(
        "DELETE FROM rubricate_job_failures f WHERE NOT EXISTS (SELECT 1 FROM procrastinate_jobs"
        " j WHERE j.id = f.job_id AND j.status IN ('todo', 'doing'))"
    )
    return gone.rowcount


@contextmanager
def counted(borrow: Borrow, job_id: int, *, ran_before: bool) -> Iterator[None]:
    """Run a job's body, counting an ordinary failure (raised again as `JobFailed`). `borrow`
    gives a database connection; `ran_before` says the job ran before, so a success may have a
    count to drop (a first run that succeeds costs no query)."""
    try:
        yield
    except WAITS:
        raise
    except Exception as exc:
        try:
            with borrow(timeout=COUNT_WAIT) as conn:
                failures = count(conn, job_id)
                if given_up(failures):
                    forget(conn, job_id)
        except Exception as missed:  # judged without its count (see `UNCOUNTED_WAIT`)
            logger.warning("job %s: its failure could not be counted: %s", job_id, missed)
            raise exc  # noqa: B904 - the job's own failure, not the count's, is the cause
        raise JobFailed(failures, exc) from exc
    if ran_before:
        try:
            with borrow(timeout=COUNT_WAIT) as conn:
                forget(conn, job_id)
        except Exception as missed:  # the job succeeded: a row left behind is pruned later
            logger.warning("job %s: its failure count could not be dropped: %s", job_id, missed)
