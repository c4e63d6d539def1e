"""A job's waits (a rate limit, the pace of writes, a busy PR) never use up its retries: only
ordinary failures are counted, in PostgreSQL, apart from procrastinate's attempts."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace
from typing import Any

import pytest

from rubricate.errors import Busy, GitHubError, JobFailed, WritesPaced
from rubricate.ledger.pg_schema import connect
from rubricate.serve.failures import MAX_FAILURES, UNCOUNTED_MOST, counted, prune
from rubricate.serve.queue import HANDLE, defer
from rubricate.serve.tasks import BUSY_WAIT, Retry

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
JOB = 4242


def decide(exception: BaseException, attempts: int) -> Any:
    job: Any = SimpleNamespace(attempts=attempts)
    return Retry().get_retry_decision(exception=exception, job=job)


def test_a_job_paced_many_times_is_still_retried_after_an_ordinary_failure() -> None:
    paced = decide(WritesPaced(NOW), attempts=40)
    assert paced is not None
    assert paced.retry_at == NOW
    after = decide(JobFailed(1, GitHubError("502")), attempts=41)
    assert after is not None
    assert after.retry_at is not None


def test_a_busy_pr_is_tried_again_soon_whatever_the_attempts() -> None:
    before = datetime.now(timezone.utc)
    decision = decide(Busy("another job of o/r#1 is running"), attempts=99)
    assert decision is not None
    assert decision.retry_at is not None
    assert decision.retry_at - before < timedelta(seconds=BUSY_WAIT + 60)


def test_failures_wait_longer_each_time_and_end_after_the_most() -> None:
    waits = []
    for failures in range(1, MAX_FAILURES + 1):
        decision = decide(JobFailed(failures, GitHubError("502")), attempts=0)
        assert decision is not None
        waits.append(decision.retry_at)
    assert waits == sorted(waits)
    assert decide(JobFailed(MAX_FAILURES + 1, GitHubError("502")), attempts=0) is None


def test_a_failure_the_count_missed_is_retried_whatever_the_waits_before_it() -> None:
    decision = decide(GitHubError("502"), attempts=MAX_FAILURES + 3)
    assert decision is not None
    assert decision.retry_at is not None
    assert decide(GitHubError("502"), attempts=UNCOUNTED_MOST - 2) is not None
    assert decide(GitHubError("502"), attempts=UNCOUNTED_MOST - 1) is None


def borrowing(url: str) -> Any:
    @contextmanager
    def borrow(timeout: float | None = None) -> Iterator[Any]:
        with connect(url) as conn:
            yield conn

    return borrow


def count_of(url: str) -> list[tuple[Any, ...]]:
    with connect(url) as conn:
        return conn.execute("SELECT job_id, failures FROM rubricate_job_failures").fetchall()


def run(
    url: str, error: BaseException | None, *, ran_before: bool, job: int = JOB
) -> BaseException | None:
    """One run of job `job` that raises `error`; what came out of it."""
    try:
        with counted(borrowing(url), job, ran_before=ran_before):
            if error is not None:
                raise error
    except Exception as exc:
        return exc
    return None


def test_waits_are_not_counted_and_failures_are(db_url: str) -> None:
    for attempt in range(12):
        paced = run(db_url, WritesPaced(NOW), ran_before=attempt > 0)
        assert isinstance(paced, WritesPaced)
    assert isinstance(run(db_url, Busy("busy"), ran_before=True), Busy)
    assert count_of(db_url) == []
    failed = run(db_url, GitHubError("502 Bad Gateway"), ran_before=True)
    assert isinstance(failed, JobFailed)
    assert failed.failures == 1
    assert isinstance(failed.__cause__, GitHubError)
    assert "502 Bad Gateway" in str(failed)
    assert count_of(db_url) == [(JOB, 1)]
    assert decide(failed, attempts=14) is not None
    assert run(db_url, None, ran_before=True) is None
    assert count_of(db_url) == []


def test_the_last_failure_gives_the_job_up_and_drops_its_count(db_url: str) -> None:
    outcomes = [run(db_url, GitHubError("502"), ran_before=True) for _ in range(MAX_FAILURES + 1)]
    assert [o.failures for o in outcomes if isinstance(o, JobFailed)] == list(
        range(1, MAX_FAILURES + 2)
    )
    assert decide(outcomes[-2], attempts=0) is not None
    assert decide(outcomes[-1], attempts=0) is None
    assert count_of(db_url) == []


def test_a_first_run_that_succeeds_costs_no_query() -> None:
    def borrow(timeout: float | None = None) -> Any:
        raise AssertionError("no connection should be asked for")

    with counted(borrow, JOB, ran_before=False):
        pass


@contextmanager
def database_away(timeout: float | None = None) -> Iterator[Any]:
    raise OSError("database away")
    yield


def test_a_success_whose_count_cannot_be_dropped_stays_a_success() -> None:
    with counted(database_away, JOB, ran_before=True):
        pass


def test_the_counts_of_ended_jobs_are_pruned(db_url: str) -> None:
    with connect(db_url) as conn:
        assert defer(conn, HANDLE, {"guid": "waiting"})
        waiting = conn.execute("SELECT max(id) FROM procrastinate_jobs").fetchone()
        assert waiting is not None
    for job in (waiting[0], 999_999):
        assert isinstance(run(db_url, GitHubError("502"), ran_before=False, job=job), JobFailed)
    with connect(db_url) as conn:
        assert prune(conn) == 1
    assert count_of(db_url) == [(waiting[0], 1)]


def test_a_count_the_database_cannot_keep_leaves_the_original_failure() -> None:
    borrow = database_away

    error = GitHubError("502")
    with pytest.raises(GitHubError) as raised, counted(borrow, JOB, ran_before=True):
        raise error
    assert raised.value is error
