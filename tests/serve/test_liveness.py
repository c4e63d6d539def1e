"""A worker seen dead by its PostgreSQL session: its `doing` jobs are put back as soon as its
liveness lock is free, whatever its heartbeat says; a worker holding its lock keeps its jobs; the
heartbeat rule stays as the fallback; a job is put back once when two workers look at once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import psycopg
import pytest

from rubricate.ledger.pg_schema import connect
from rubricate.serve.queue import HANDLE, PUBLISH, QUEUE, defer

procrastinate = pytest.importorskip("procrastinate")

from procrastinate.manager import JobManager  # noqa: E402  (procrastinate first, or skip)

from rubricate.serve.liveness import (  # noqa: E402
    LIVENESS_SPACE,
    PUT_BACK,
    FreeLocks,
    LiveJobManager,
    LivenessLocks,
    liveness_key,
    put_back,
    recover_round,
)

NEVER = 3600.0
"""A heartbeat timeout no test reaches: a job put back was put back for its lock."""


def run(db_url: str, body: Callable[[Any], Awaitable[None]]) -> None:
    """Run `body(connector)` with procrastinate's connector open on the database."""

    async def main() -> None:
        connector = procrastinate.PsycopgConnector(conninfo=db_url)
        await connector.open_async()
        try:
            await body(connector)
        finally:
            await connector.close_async()

    asyncio.run(main())


async def running_job(connector: Any, db_url: str, manager: Any = None) -> tuple[int, int]:
    """A registered worker (by `manager`, else plain procrastinate) running a handle job: the
    worker's id and the job's."""
    manager = manager or JobManager(connector)
    worker_id = await manager.register_worker()
    with connect(db_url) as conn, conn.transaction():
        defer(conn, HANDLE, {"guid": "g-1"})
    job = await manager.fetch_job(queues=[QUEUE], worker_id=worker_id)
    assert job is not None
    assert job.id is not None
    return worker_id, job.id


@asynccontextmanager
async def live_job(connector: Any, db_url: str) -> AsyncIterator[tuple[LivenessLocks, int, int]]:
    """A worker holding its liveness lock, running a job: its locks, its id, the job's id; the
    locks' session closed afterwards (as a kill closes it)."""
    locks = LivenessLocks(db_url)
    worker_id, job_id = await running_job(connector, db_url, LiveJobManager(connector, locks))
    try:
        yield locks, worker_id, job_id
    finally:
        await locks.close()


def execute(db_url: str, query: Any, *params: object) -> None:
    """One statement on a connection of its own."""
    with connect(db_url) as conn:
        conn.execute(query, params)


def job_row(db_url: str, job_id: int) -> tuple[str, int]:
    """The job's status and attempts."""
    with connect(db_url) as conn:
        row = conn.execute(
            "SELECT status::text, attempts FROM procrastinate_jobs WHERE id = %s", (job_id,)
        ).fetchone()
    assert row is not None
    return row[0], row[1]


def test_a_job_whose_workers_lock_is_free_is_put_back_though_its_heartbeat_is_fresh(
    db_url: str,
) -> None:
    async def body(connector: Any) -> None:
        _, job_id = await running_job(connector, db_url)  # its worker never took its lock
        assert await put_back(connector, NEVER, grace=0) == [(job_id, HANDLE, "gone")]
        assert job_row(db_url, job_id) == ("todo", 1)
        assert await put_back(connector, NEVER, grace=0) == []

    run(db_url, body)


def test_a_job_whose_worker_holds_its_lock_stays_with_it(db_url: str) -> None:
    async def body(connector: Any) -> None:
        async with live_job(connector, db_url) as (locks, worker_id, job_id):
            assert locks.held == {worker_id}
            assert await put_back(connector, NEVER, grace=0) == []
            assert job_row(db_url, job_id) == ("doing", 0)
        assert await put_back(connector, NEVER, grace=0) == [(job_id, HANDLE, "gone")]

    run(db_url, body)


def test_a_free_lock_does_not_count_right_after_the_database_started(db_url: str) -> None:
    """Every lock vanishes with a restart: the live workers get time to take theirs again."""

    async def body(connector: Any) -> None:
        _, job_id = await running_job(connector, db_url)
        assert await put_back(connector, NEVER, grace=NEVER) == []
        assert job_row(db_url, job_id) == ("doing", 0)

    run(db_url, body)


AN_HOUR_SILENT = (
    "UPDATE procrastinate_workers SET last_heartbeat = now() - interval '1 hour' WHERE id = %s"
)


def test_a_silent_worker_holding_its_lock_loses_its_jobs_to_the_heartbeat_rule(
    db_url: str,
) -> None:
    async def body(connector: Any) -> None:
        async with live_job(connector, db_url) as (_, worker_id, job_id):
            execute(db_url, AN_HOUR_SILENT, worker_id)
            assert await put_back(connector, 30.0, grace=0) == [(job_id, HANDLE, "silent")]

    run(db_url, body)


def test_a_worker_unregistered_lets_its_lock_go(db_url: str) -> None:
    async def body(connector: Any) -> None:
        locks = LivenessLocks(db_url)
        manager = LiveJobManager(connector, locks)
        first = await manager.register_worker()
        second = await manager.register_worker()
        await manager.unregister_worker(first)
        assert locks.held == {second}
        assert holders(db_url) == {liveness_key(second)}
        await manager.unregister_worker(second)
        assert holders(db_url) == set()

    run(db_url, body)


def holders(db_url: str) -> set[int]:
    """The liveness keys held right now."""
    with connect(db_url) as conn:
        found = conn.execute(
            "SELECT objid FROM pg_locks WHERE locktype = 'advisory' AND classid = %s AND granted",
            (LIVENESS_SPACE,),
        ).fetchall()
    return {int(objid) for (objid,) in found}


def terminate_lock_session(db_url: str, worker_id: int) -> None:
    """End the backend holding the worker's liveness lock, as a failover, a pooler or network
    reset or `pg_terminate_backend` does, with no server restart; wait until it has left."""
    execute(
        db_url,
        "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory'"
        " AND classid = %s AND objid = %s",
        LIVENESS_SPACE,
        liveness_key(worker_id),
    )
    for _ in range(100):  # bounded: the terminated backend leaves within moments
        if not holders(db_url):
            return
        time.sleep(0.05)
    raise AssertionError("the lock session did not end")


def test_a_broken_lock_session_is_opened_again_with_its_locks(db_url: str) -> None:
    """What a database restart does to a live worker: its session goes, and its next round
    takes its locks again before anyone puts its jobs back."""

    async def body(connector: Any) -> None:
        async with live_job(connector, db_url) as (locks, worker_id, job_id):
            terminate_lock_session(db_url, worker_id)
            assert holders(db_url) == set()
            await locks.ensure()
            assert holders(db_url) == {liveness_key(worker_id)}
            assert await put_back(connector, NEVER, grace=0) == []
            assert job_row(db_url, job_id) == ("doing", 0)

    run(db_url, body)


def test_two_workers_looking_at_once_put_a_job_back_once(db_url: str) -> None:
    async def body(connector: Any) -> None:
        _, job_id = await running_job(connector, db_url)
        with psycopg.connect(db_url) as first:  # a transaction: the first look, not yet ended
            found = first.execute(
                PUT_BACK,
                {
                    "queue": QUEUE,
                    "stalled_after": NEVER,
                    "grace": 0.0,
                    "space": LIVENESS_SPACE,
                    "gone": None,
                },
            ).fetchall()
            assert [row[0] for row in found] == [job_id]
            assert await put_back(connector, NEVER, grace=0) == []  # the second look, meanwhile
            first.commit()
        assert job_row(db_url, job_id) == ("todo", 1)
        assert await put_back(connector, NEVER, grace=0) == []

    run(db_url, body)


def test_a_lock_counts_as_free_only_once_it_stayed_free() -> None:
    watch = FreeLocks()
    assert watch.confirmed({1, 2}, now=100.0, after=2.0) == frozenset()
    assert watch.confirmed({1, 2}, now=101.0, after=2.0) == frozenset()
    assert watch.confirmed({1}, now=102.0, after=2.0) == {1}
    assert watch.confirmed({1, 2}, now=103.0, after=2.0) == {1}  # 2 held again: clock restarts
    assert watch.confirmed({1, 2}, now=105.0, after=2.0) == {1, 2}


def test_a_live_workers_dropped_session_does_not_lose_it_its_job(db_url: str) -> None:
    """Another process's round comes first, while the live worker has not yet taken its lock
    again: the job stays; then the worker's own round takes the lock, and it keeps the job."""

    async def body(connector: Any) -> None:
        other, watch = LivenessLocks(db_url), FreeLocks()
        async with live_job(connector, db_url) as (locks, worker_id, job_id):
            terminate_lock_session(db_url, worker_id)
            await recover_round(connector, other, NEVER, watch, grace=0, confirm_after=0.2)
            assert job_row(db_url, job_id) == ("doing", 0)
            await recover_round(connector, locks, NEVER, FreeLocks(), grace=0, confirm_after=0.2)
            assert holders(db_url) == {liveness_key(worker_id)}
            await asyncio.sleep(0.3)
            await recover_round(connector, other, NEVER, watch, grace=0, confirm_after=0.2)
            assert job_row(db_url, job_id) == ("doing", 0)
            assert watch.since == {}

    run(db_url, body)


def test_a_killed_workers_job_goes_back_once_its_lock_stayed_free(db_url: str) -> None:
    async def body(connector: Any) -> None:
        other, watch = LivenessLocks(db_url), FreeLocks()
        async with live_job(connector, db_url) as (locks, worker_id, job_id):
            await locks.close()  # what a kill does to its session
            await recover_round(connector, other, NEVER, watch, grace=0, confirm_after=0.2)
            assert job_row(db_url, job_id) == ("doing", 0)
            assert set(watch.since) == {worker_id}
            await asyncio.sleep(0.3)
            await recover_round(connector, other, NEVER, watch, grace=0, confirm_after=0.2)
            assert job_row(db_url, job_id) == ("todo", 1)

    run(db_url, body)


async def running_publish(connector: Any, db_url: str, manager: Any) -> Any:
    """A publish job (it carries a queueing lock) fetched by a worker registered by `manager`,
    then a second publish of the same PR queued while it runs (as the PR's next delivery does)."""
    worker_id = await manager.register_worker()
    with connect(db_url) as conn, conn.transaction():
        defer(conn, PUBLISH, {"repo": "o/r", "pr": 1}, lock="o/r#1", queueing_lock="p-o/r#1")
    job = await manager.fetch_job(queues=[QUEUE], worker_id=worker_id)
    assert job is not None
    with connect(db_url) as conn, conn.transaction():
        assert defer(conn, PUBLISH, {"repo": "o/r", "pr": 1}, queueing_lock="p-o/r#1")
    return job


def statuses(db_url: str) -> list[tuple[str, str]]:
    """Every job's task and status, in the order they were queued."""
    with connect(db_url) as conn:
        found = conn.execute("SELECT task_name, status::text FROM procrastinate_jobs ORDER BY id")
        return [(row[0], row[1]) for row in found.fetchall()]


def test_a_gone_job_whose_queueing_lock_waits_is_ended_and_the_others_go_back(
    db_url: str,
) -> None:
    """Putting back a publish whose PR has another publish waiting would break the queue's
    unique waiting lock and fail the whole statement: it is ended instead, the others go back."""

    async def body(connector: Any) -> None:
        manager = JobManager(connector)  # its workers never take their locks: all are gone
        _, handle_id = await running_job(connector, db_url, manager)
        job = await running_publish(connector, db_url, manager)
        back = await put_back(connector, NEVER, grace=0)
        assert sorted(back) == sorted(
            [(job.id, PUBLISH, "superseded"), (handle_id, HANDLE, "gone")]
        )
        assert statuses(db_url) == [(HANDLE, "todo"), (PUBLISH, "failed"), (PUBLISH, "todo")]

    run(db_url, body)


def test_two_gone_jobs_with_one_queueing_lock_put_one_back(db_url: str) -> None:
    async def body(connector: Any) -> None:
        manager = JobManager(connector)
        await running_publish(connector, db_url, manager)
        second = await manager.fetch_job(queues=[QUEUE], worker_id=await manager.register_worker())
        assert second is not None  # the waiting publish, now running too (no PR lock on it)
        back = await put_back(connector, NEVER, grace=0)
        assert [why for _, _, why in sorted(back)] == ["gone", "superseded"]
        assert statuses(db_url) == [(PUBLISH, "todo"), (PUBLISH, "failed")]

    run(db_url, body)


def test_a_retry_whose_queueing_lock_waits_ends_the_job(db_url: str) -> None:
    """procrastinate's own retry (a failed publish, say) would leave the job `doing` for good,
    its PR's lock with it: the job is ended as failed, the waiting one does the work."""

    async def body(connector: Any) -> None:
        locks = LivenessLocks(db_url)
        manager = LiveJobManager(connector, locks)
        try:
            job = await running_publish(connector, db_url, manager)
            await manager.retry_job(job)
        finally:
            await locks.close()
        assert statuses(db_url) == [(PUBLISH, "failed"), (PUBLISH, "todo")]

    run(db_url, body)
