"""A worker seen dead by its PostgreSQL session, and its jobs put back at once (shell).

Each worker process holds, on a session of its own, one advisory lock per procrastinate worker
id it runs (`LivenessLocks`), taken when the worker registers and before it fetches a job
(`LiveJobManager`). PostgreSQL releases a session's locks when its connection closes, so a
killed worker's lock is free a moment after the kill. Every worker looks often
(`RECOVER_EVERY`) for `doing` jobs whose worker's lock it can take (`put_back`): that worker is
gone, and its jobs go back in the queue without waiting for its heartbeat to age. A worker alive
but hung or cut off keeps its session or not; the heartbeat rule (`--stalled-after`) stays
beside the lock as the fallback. Right after the database starts, every lock has vanished at
once: a free lock counts only once the server has run `RESTART_GRACE` seconds, time for the live
workers to take theirs again (`LivenessLocks.ensure`, each round). A session can also drop with
no restart (a failover to a standby, a pooler or network reset, a terminated backend): so a
worker's lock must be seen free by two rounds `CONFIRM_AFTER` seconds apart (`FreeLocks`) before
its jobs go back, time for a live worker's next round to take it again. See docs/app.md.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import psycopg
from procrastinate.exceptions import UniqueViolation
from procrastinate.jobs import Job, Status
from procrastinate.manager import JobManager

from rubricate.serve.bounded_wait import within
from rubricate.serve.queue import QUEUE

if TYPE_CHECKING:
    from procrastinate.connector import BaseConnector

logger = logging.getLogger(__name__)

LIVENESS_SPACE = 24_2025
"""The first key of the liveness locks (the second is the worker id, `liveness_key`); the PR
locks use another (`rubricate.serve.queue`)."""
RECOVER_EVERY = 0.5
"""Seconds between two rounds of the recovery loop (a probe of the lock session, one query)."""
RESTART_GRACE = 10.0
"""Seconds after the database starts during which a free liveness lock does not count."""
QUEUEING_LOCK_INDEX = "procrastinate_jobs_queueing_lock_idx_v1"
"""procrastinate's unique index of the waiting jobs' queueing locks."""
CONFIRM_AFTER = 2.0
"""Seconds a worker's lock must stay free, seen by this process's rounds, before its jobs go
back: a live worker whose session dropped takes its lock again within a round or two."""
PROBE_TIMEOUT = 5.0
"""Seconds the lock session's probe may take before the session counts as broken (a half-open
connection would otherwise hold the rounds, and the worker's start and stop, for minutes)."""


def liveness_key(worker_id: int) -> int:
    """The second key of a worker's liveness lock (`mod` in `PUT_BACK` computes the same)."""
    return worker_id % 2**31


class LivenessLocks:
    """One session holding the liveness lock of each worker id this process runs."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._conn: psycopg.AsyncConnection[Any] | None = None
        self._ids: set[int] = set()
        self._guard = asyncio.Lock()

    @property
    def held(self) -> frozenset[int]:
        """The worker ids whose lock this process means to hold."""
        return frozenset(self._ids)

    async def hold(self, worker_id: int) -> None:
        """Take the worker's lock (waiting for a recovery that has it for an instant); raise
        when the database cannot be reached, and the worker does not start."""
        async with self._guard:
            self._ids.add(worker_id)
            try:
                if self._conn is None:
                    await self._connect()
                else:
                    await _lock(self._conn, [worker_id])
            except BaseException:
                self._ids.discard(worker_id)
                await self._drop()
                raise

    async def release(self, worker_id: int) -> None:
        """Let the worker's lock go (it unregistered); the session closes with the last one."""
        async with self._guard:
            self._ids.discard(worker_id)
            if self._conn is None:
                return
            if not self._ids:
                await self._drop()
                return
            try:
                await self._conn.execute(
                    "SELECT pg_advisory_unlock(%s, %s)", (LIVENESS_SPACE, liveness_key(worker_id))
                )
            except psycopg.Error:
                await self._drop()  # taken again by the next `ensure`, without this one

    async def ensure(self) -> None:
        """Check the session with one empty query; when it broke (a database restart), open
        another and take every lock again. Raises when the database cannot be reached."""
        async with self._guard:
            if not self._ids:
                return
            if self._conn is not None:
                try:
                    await within(PROBE_TIMEOUT, self._conn.execute("SELECT 1"))
                    return
                except (psycopg.Error, TimeoutError):
                    logger.warning("the liveness session broke: taking the locks again")
                    await self._drop()
            await self._connect()

    async def close(self) -> None:
        """Close the session: every lock goes."""
        async with self._guard:
            self._ids.clear()
            await self._drop()

    async def _connect(self) -> None:
        # libpq's keepalives: a peer gone without a reset is noticed in seconds, not minutes
        conn = await psycopg.AsyncConnection.connect(
            self._url,
            autocommit=True,
            connect_timeout=10,
            keepalives=1,
            keepalives_idle=5,
            keepalives_interval=2,
            keepalives_count=3,
            tcp_user_timeout=10_000,
        )
        try:
            # never wait long on a lock: a recovery holds a free one for one statement only
            await conn.execute("SET lock_timeout = '5s'")
            await _lock(conn, self._ids)
        except BaseException:
            await conn.close()
            raise
        self._conn = conn

    async def _drop(self) -> None:
        if self._conn is not None:
            conn, self._conn = self._conn, None
            await conn.close()


async def _lock(conn: psycopg.AsyncConnection[Any], worker_ids: Iterable[int]) -> None:
    for worker_id in sorted(worker_ids):
        await conn.execute(
            "SELECT pg_advisory_lock(%s, %s)", (LIVENESS_SPACE, liveness_key(worker_id))
        )


class LiveJobManager(JobManager):
    """procrastinate's job manager, with a worker's liveness lock held from its registration
    (before its first job is fetched) to its unregistration."""

    def __init__(self, connector: BaseConnector, locks: LivenessLocks) -> None:
        super().__init__(connector)
        self.locks = locks

    async def register_worker(self) -> int:
        """Register the worker, then take its lock."""
        worker_id = await super().register_worker()
        await self.locks.hold(worker_id)
        return worker_id

    async def unregister_worker(self, worker_id: int) -> None:
        """Unregister the worker (its jobs are done), then let its lock go."""
        try:
            await super().unregister_worker(worker_id)
        finally:
            await self.locks.release(worker_id)

    async def retry_job(
        self,
        job: Job,
        retry_at: datetime | None = None,
        priority: int | None = None,
        queue: str | None = None,
        lock: str | None = None,
    ) -> None:
        """Put the job back to run at `retry_at`; or, when a job with its queueing lock was
        queued while it ran, end it as failed: the one waiting does the same work, and the
        queue holds one waiting job a lock (putting this one back would fail, leaving it
        `doing` for good, and its PR's lock with it)."""
        try:
            await super().retry_job(job, retry_at, priority, queue, lock)
        except UniqueViolation as exc:
            if exc.constraint_name != QUEUEING_LOCK_INDEX:
                raise
            logger.warning(
                "job %s (%s) not retried: a job with its queueing lock %s waits",
                job.id,
                job.task_name,
                job.queueing_lock,
            )
            await self.finish_job(job, Status.FAILED, delete_job=False)


PUT_BACK = """
WITH gone AS (
    SELECT job.id, job.task_name, job.queue_name, job.queueing_lock,
           CASE WHEN worker.id IS NULL THEN 'unregistered'
                WHEN worker.last_heartbeat < now() - make_interval(secs => %(stalled_after)s)
                THEN 'silent'
                ELSE 'gone' END AS why
      FROM procrastinate_jobs AS job
      LEFT JOIN procrastinate_workers AS worker ON worker.id = job.worker_id
     WHERE job.status = 'doing' AND job.queue_name = %(queue)s
       AND (worker.id IS NULL
            OR worker.last_heartbeat < now() - make_interval(secs => %(stalled_after)s)
            OR (pg_postmaster_start_time() < now() - make_interval(secs => %(grace)s)
                AND (%(gone)s::bigint[] IS NULL OR job.worker_id = ANY(%(gone)s::bigint[]))
                AND pg_try_advisory_xact_lock(%(space)s, mod(job.worker_id, 2147483648)::integer)))
       FOR UPDATE OF job SKIP LOCKED
), ranked AS (
    SELECT gone.*,
           queueing_lock IS NOT NULL AND (
               row_number() OVER (PARTITION BY queueing_lock ORDER BY id) > 1
               OR EXISTS (SELECT 1 FROM procrastinate_jobs AS twin
                           WHERE twin.queueing_lock = gone.queueing_lock
                             AND twin.status = 'todo')) AS superseded
      FROM gone
), retried AS (
    SELECT id, task_name, queue_name, why,
           procrastinate_retry_job_v2(id, now(), NULL::integer, NULL::varchar, NULL::varchar)
      FROM ranked WHERE NOT superseded
), ended AS (
    SELECT id, task_name, queue_name, 'superseded' AS why,
           procrastinate_finish_job_v1(id, 'failed', false)
      FROM ranked WHERE superseded
)
SELECT id, task_name, why,
       pg_notify('procrastinate_queue_v1#' || queue_name,
                 json_build_object('type', 'job_inserted', 'job_id', id)::text)
  FROM retried
UNION ALL
SELECT id, task_name, why, NULL FROM ended
"""
"""One statement: the queue's `doing` jobs whose worker is unregistered, silent for
`stalled_after` seconds, or gone (its liveness lock free, counted `grace` seconds after the
server started; only the workers in `gone` when it is not NULL), each put back to run now as
procrastinate's retry does, and the workers woken as for a new job. The row locks (`SKIP
LOCKED`) put each job back once when two workers look at the same time; the lock tried stays
taken until the statement ends, so a second look at once finds it taken and leaves the job.

A job with a queueing lock (a publish, the sweep, the reconciler) is not put back when a job
with the same lock already waits, or when another of the jobs put back carries it: the queue
holds one waiting job a lock (procrastinate's unique index), and putting it back would fail the
whole statement, leaving every gone job where it was. That job is ended as failed instead
(`superseded`): the one waiting does the same work (publishes the PR's views as they are then,
sweeps or reconciles as of then)."""


FREE = """
SELECT DISTINCT job.worker_id
  FROM procrastinate_jobs AS job
 WHERE job.status = 'doing' AND job.queue_name = %(queue)s AND job.worker_id IS NOT NULL
   AND pg_postmaster_start_time() < now() - make_interval(secs => %(grace)s)
   AND pg_try_advisory_xact_lock(%(space)s, mod(job.worker_id, 2147483648)::integer)
"""
"""The workers running the queue's `doing` jobs whose liveness lock is free now (each lock held
for this statement only)."""


@dataclass
class FreeLocks:
    """When this process's rounds first saw each worker's lock free, in monotonic seconds; a
    worker seen holding it again is forgotten."""

    since: dict[int, float] = field(default_factory=dict)

    def confirmed(
        self, free_now: Iterable[int], now: float, after: float = CONFIRM_AFTER
    ) -> frozenset[int]:
        """Record the workers whose lock is free now; those free since `after` seconds ago."""
        self.since = {worker: self.since.get(worker, now) for worker in free_now}
        return frozenset(worker for worker, seen in self.since.items() if now - seen >= after)


async def free_workers(connector: BaseConnector, grace: float = RESTART_GRACE) -> set[int]:
    """The workers of `doing` jobs whose liveness lock is free now (`FREE`)."""
    rows = await connector.execute_query_all_async(
        FREE, queue=QUEUE, grace=grace, space=LIVENESS_SPACE
    )
    return {int(row["worker_id"]) for row in rows}


async def put_back(
    connector: BaseConnector,
    stalled_after: float,
    grace: float = RESTART_GRACE,
    gone: Collection[int] | None = None,
) -> list[tuple[int, str, str]]:
    """Put back the jobs of workers gone (any whose lock is free, or only those in `gone`) or
    silent; each job's id, task and why (`gone`, `silent`, `unregistered`)."""
    rows = await connector.execute_query_all_async(
        PUT_BACK,
        queue=QUEUE,
        stalled_after=stalled_after,
        grace=grace,
        space=LIVENESS_SPACE,
        gone=None if gone is None else sorted(gone),
    )
    return [(int(row["id"]), str(row["task_name"]), str(row["why"])) for row in rows]


async def recover_round(
    connector: BaseConnector,
    locks: LivenessLocks,
    stalled_after: float,
    watch: FreeLocks,
    grace: float = RESTART_GRACE,
    confirm_after: float = CONFIRM_AFTER,
) -> None:
    """One round: keep this process's liveness locks held (`LivenessLocks.ensure`), then put
    back the jobs of workers silent, or gone: their lock seen free since `confirm_after`."""
    try:
        await locks.ensure()
    except Exception as exc:  # the database is away: the next round tries again
        logger.warning("taking the liveness locks again failed: %s", exc)
    try:
        free = await free_workers(connector, grace)
        gone = watch.confirmed(free, time.monotonic(), confirm_after)
        for job_id, task, why in await put_back(connector, stalled_after, grace, gone):
            if why == "superseded":  # ended, not put back: a waiting twin does its work
                logger.warning(
                    "job %s (%s) ended: a waiting job of its lock does its work", job_id, task
                )
            else:
                logger.warning("job %s (%s) put back: its worker is %s", job_id, task, why)
    except Exception as exc:  # the database is away: the next round tries again
        logger.warning("looking for jobs of gone workers failed: %s", exc)


async def recover(
    connector: BaseConnector,
    locks: LivenessLocks,
    stalled_after: float,
    every: float = RECOVER_EVERY,
) -> None:
    """Forever, every `every` seconds (and at once): one `recover_round`."""
    watch = FreeLocks()
    while True:
        await recover_round(connector, locks, stalled_after, watch)
        await asyncio.sleep(every)
