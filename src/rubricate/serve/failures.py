"""Each job's failures, counted apart from procrastinate's attempts (shell: PostgreSQL).

procrastinate counts every run of a job as an attempt, whatever stopped it. A job put back by a
rate limit or by its installation's pace of writes (`RateLimited`), or because another job of
its PR held the PR's lock (`PrBusy`), has not failed: it waited its turn, and may wait many
times in an hour of heavy writing. Only the other failures (a 502, a database away, a bug) count
toward `MAX_FAILURES`: they are kept in `rubricate_job_failures` (migration 5) by job id, each
counted in its own statement as the job stops, and the row goes when the job succeeds or is
given up. A failure the count itself cannot record (the database away) is judged by
procrastinate's attempts instead, as before the count existed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any

from rubricate.errors import PrBusy, RateLimited, RunFailed

if TYPE_CHECKING:
    import psycopg

MAX_FAILURES = 8
"""Retries after ordinary failures before a job is given up (its ninth failure ends it)."""
WAITS = (RateLimited, PrBusy)
"""What puts a job back without counting as a failure."""


class Failed(RunFailed):
    """A job's ordinary failure, with how many it has had (this one included)."""

    def __init__(self, failures: int, cause: BaseException) -> None:
        super().__init__(f"{cause} (failure {failures} of this job)")
        self.failures = failures


def given_up(failures: int) -> bool:
    """True when a job with this many failures is not retried again."""
    return failures > MAX_FAILURES


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


@contextmanager
def counted(
    borrow: Callable[[], AbstractContextManager[psycopg.Connection[Any]]],
    job_id: int,
    *,
    ran_before: bool,
) -> Iterator[None]:
    """Run a job's body, counting an ordinary failure (raised again as `Failed`). `borrow`
    gives a database connection (a context manager); `ran_before` says the job ran before, so a
    success may have a count to drop (a first run that succeeds costs no query)."""
    try:
        yield
    except WAITS:
        raise
    except Exception as exc:
        try:
            with borrow() as conn:
                failures = count(conn, job_id)
                if given_up(failures):
                    forget(conn, job_id)
        except Exception:  # the count cannot be kept: procrastinate's attempts judge it
            raise exc from None
        raise Failed(failures, exc) from exc
    if ran_before:
        with borrow() as conn:
            forget(conn, job_id)


def retry_after(failures: int) -> int:
    """Seconds before a job with this many failures runs again: 5, 10, 20 … up to 10 minutes."""
    return min(600, 5 << min(max(failures - 1, 0), 8))
