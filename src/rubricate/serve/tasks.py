"""The worker's procrastinate tasks and their retries (shell).

`handle` runs one delivery (`rubricate.serve.handle`), `publish` one PR's views
(`rubricate.serve.publish`); a job that hits a rate limit or its installation's pace of writes is
retried at the time given, one whose PR's lock another job holds after `BUSY_WAIT`, and any
other failure after a growing wait, up to `failures.MAX_FAILURES` failures counted apart from waits
(`rubricate.serve.failures`). Each worker holds its liveness lock
from its registration on (`rubricate.serve.liveness`), so the jobs of a worker that died are put
back in the queue at once; every five minutes the sweeper
asks GitHub again for the deliveries it failed to hand over (`rubricate.serve.sweeper`) and
drops the failure counts of jobs that ended, and
every fifteen minutes the jobs the ledger holds open for closed PRs are caught up
(`rubricate.serve.reconciler`). Each of these two periodic passes takes a lock of its own: a
copy put back as stalled while the pass it replaced still goes ends at once, since that pass
does the work.
"""

from __future__ import annotations

import logging
from contextlib import AbstractContextManager
from datetime import datetime, timezone
from typing import TYPE_CHECKING

import procrastinate
from procrastinate import BaseRetryStrategy, RetryDecision

from rubricate.errors import Busy, JobFailed, RateLimited
from rubricate.ledger.pg_schema import connect
from rubricate.serve.failures import (
    UNCOUNTED_MOST,
    UNCOUNTED_WAIT,
    counted,
    given_up,
    prune,
    retry_after,
)
from rubricate.serve.handle import handle_delivery
from rubricate.serve.liveness import LiveJobManager, LivenessLocks
from rubricate.serve.publish import publish_pr
from rubricate.serve.queue import HANDLE, PUBLISH, QUEUE, RECONCILE, SWEEP, held
from rubricate.serve.reconciler import reconcile
from rubricate.serve.sweeper import sweep

if TYPE_CHECKING:
    from procrastinate.job_context import JobContext
    from procrastinate.jobs import Job

    from rubricate.serve.context import WorkerContext

logger = logging.getLogger(__name__)

BUSY_WAIT = 5
"""Seconds before a job whose PR's lock another job holds is tried again."""


class Retry(BaseRetryStrategy):
    """At the given time for a rate limit or the pace of writes, after `BUSY_WAIT` for a busy
    PR; else 5 s, 10 s, 20 s … up to 10 minutes, by the job's failures."""

    def get_retry_decision(self, *, exception: BaseException, job: Job) -> RetryDecision | None:
        """When to run the job again, or None to give up (see `rubricate.serve.failures` for a
        failure the count could not record)."""
        if isinstance(exception, RateLimited):
            return RetryDecision(retry_at=exception.until)
        if isinstance(exception, Busy):
            return RetryDecision(retry_in={"seconds": BUSY_WAIT})
        if not isinstance(exception, JobFailed):  # not counted: procrastinate's runs include waits
            if job.attempts + 1 >= UNCOUNTED_MOST:
                return None
            return RetryDecision(retry_in={"seconds": UNCOUNTED_WAIT})
        if given_up(exception.failures):
            return None
        return RetryDecision(retry_in={"seconds": retry_after(exception.failures)})


def register(app: procrastinate.App, ctx: WorkerContext) -> None:
    """Add rubricate's tasks to the app."""

    def failures_of(context: JobContext) -> AbstractContextManager[None]:
        job = context.job
        assert job.id is not None, "a running job has its id"
        return counted(ctx.connections.borrow, job.id, ran_before=bool(job.attempts))

    @app.task(name=HANDLE, queue=QUEUE, retry=Retry(), pass_context=True)
    def handle(context: JobContext, guid: str) -> None:
        with failures_of(context):
            handle_delivery(ctx, guid)

    @app.task(name=PUBLISH, queue=QUEUE, retry=Retry(), pass_context=True)
    def publish(context: JobContext, repo: str, pr: int) -> None:
        with failures_of(context):
            publish_pr(ctx, repo, pr, again=bool(context.job.attempts))

    @app.periodic(cron="*/5 * * * *", periodic_id=SWEEP)
    @app.task(name=SWEEP, queue=QUEUE, queueing_lock=SWEEP, retry=Retry(), pass_context=True)
    def sweep_deliveries(context: JobContext, timestamp: int) -> None:
        with failures_of(context), ctx.connections.borrow() as lock, connect(ctx.url) as conn:
            if not held(lock, SWEEP):
                logger.info("sweep %s skipped: another run of the sweep goes on", context.job.id)
                return
            now = datetime.fromtimestamp(timestamp, timezone.utc)
            sweep(conn, ctx.tokens.integration().requester, now)
            prune(conn)

    @app.periodic(cron="*/15 * * * *", periodic_id=RECONCILE)
    @app.task(
        name=RECONCILE, queue=QUEUE, queueing_lock=RECONCILE, retry=Retry(), pass_context=True
    )
    def reconcile_ledger(context: JobContext, timestamp: int) -> None:
        with failures_of(context), ctx.connections.borrow() as lock:
            if not held(lock, RECONCILE):
                logger.info("reconcile %s skipped: another pass goes on", context.job.id)
                return
            reconcile(ctx, datetime.fromtimestamp(timestamp, timezone.utc))

    del handle, publish, sweep_deliveries, reconcile_ledger


def queue_app(ctx: WorkerContext, locks: LivenessLocks) -> procrastinate.App:
    """The procrastinate app with rubricate's tasks, on the context's database; each worker it
    runs holds its liveness lock in `locks` while registered."""
    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=ctx.url))
    app.job_manager = LiveJobManager(app.connector, locks)
    register(app, ctx)
    return app
