"""The worker's procrastinate tasks and their retries (shell).

`handle` runs one delivery (`rubricate.serve.handle`), `publish` one PR's views
(`rubricate.serve.publish`); a job that hits a rate limit is retried at the time GitHub gave, any
other failure after a growing wait, up to `MAX_ATTEMPTS`. Once a minute the jobs of a worker that
stopped sending heartbeats (killed) are put back in the queue; every five minutes the sweeper
asks GitHub again for the deliveries it failed to hand over (`rubricate.serve.sweeper`), and
every fifteen minutes the jobs the ledger holds open for closed PRs are caught up
(`rubricate.serve.reconciler`).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING

import procrastinate
from procrastinate import BaseRetryStrategy, RetryDecision

from rubricate.errors import RateLimited
from rubricate.ledger.pg_schema import connect
from rubricate.serve.handle import handle_delivery
from rubricate.serve.publish import publish_pr
from rubricate.serve.queue import HANDLE, PUBLISH, QUEUE, RECONCILE, RETRY_STALLED, SWEEP
from rubricate.serve.reconciler import reconcile
from rubricate.serve.sweeper import sweep

if TYPE_CHECKING:
    from procrastinate.jobs import Job

    from rubricate.serve.context import WorkerContext

MAX_ATTEMPTS = 8


class Retry(BaseRetryStrategy):
    """At GitHub's time for a rate limit; else 5 s, 10 s, 20 s … up to 10 minutes."""

    def get_retry_decision(self, *, exception: BaseException, job: Job) -> RetryDecision | None:
        """When to run the job again, or None to give up."""
        if isinstance(exception, RateLimited):
            return RetryDecision(retry_at=exception.until)
        if job.attempts >= MAX_ATTEMPTS:
            return None
        return RetryDecision(retry_in={"seconds": min(600, 5 * 2**job.attempts)})


def register(app: procrastinate.App, ctx: WorkerContext) -> None:
    """Add rubricate's tasks to the app."""

    @app.task(name=HANDLE, queue=QUEUE, retry=Retry())
    def handle(guid: str) -> None:
        handle_delivery(ctx, guid)

    @app.task(name=PUBLISH, queue=QUEUE, retry=Retry())
    def publish(repo: str, pr: int) -> None:
        publish_pr(ctx, repo, pr)

    @app.periodic(cron="*/5 * * * *", periodic_id=SWEEP)
    @app.task(name=SWEEP, queue=QUEUE, queueing_lock=SWEEP)
    def sweep_deliveries(timestamp: int) -> None:
        with connect(ctx.url) as conn:
            now = datetime.fromtimestamp(timestamp, timezone.utc)
            sweep(conn, ctx.tokens.integration().requester, now)

    @app.periodic(cron="*/15 * * * *", periodic_id=RECONCILE)
    @app.task(name=RECONCILE, queue=QUEUE, queueing_lock=RECONCILE)
    def reconcile_ledger(timestamp: int) -> None:
        reconcile(ctx, datetime.fromtimestamp(timestamp, timezone.utc))

    @app.periodic(cron="* * * * *", periodic_id=RETRY_STALLED)
    @app.task(name=RETRY_STALLED, queue=QUEUE, queueing_lock=RETRY_STALLED)
    async def retry_stalled(timestamp: int) -> None:
        for job in await app.job_manager.get_stalled_jobs():
            await app.job_manager.retry_job(job)

    del handle, publish, sweep_deliveries, reconcile_ledger, retry_stalled


def queue_app(ctx: WorkerContext) -> procrastinate.App:
    """The procrastinate app with rubricate's tasks, on the context's database."""
    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=ctx.url))
    register(app, ctx)
    return app
