"""The worker's procrastinate tasks and their retries (shell).

`handle` runs one delivery (`rubricate.serve.handle`), `publish` one PR's views
(`rubricate.serve.publish`); a job that hits a rate limit is retried at the time GitHub gave, any
other failure after a growing wait, up to `MAX_ATTEMPTS`. Each worker holds its liveness lock
from its registration on (`rubricate.serve.liveness`), so the jobs of a worker that died are put
back in the queue at once; every five minutes the sweeper
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
from rubricate.serve.liveness import LiveJobManager, LivenessLocks
from rubricate.serve.publish import publish_pr
from rubricate.serve.queue import HANDLE, PUBLISH, QUEUE, RECONCILE, SWEEP
from rubricate.serve.reconciler import reconcile
from rubricate.serve.sweeper import sweep

if TYPE_CHECKING:
    from procrastinate.job_context import JobContext
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

    @app.task(name=PUBLISH, queue=QUEUE, retry=Retry(), pass_context=True)
    def publish(context: JobContext, repo: str, pr: int) -> None:
        publish_pr(ctx, repo, pr, again=bool(context.job.attempts))

    @app.periodic(cron="*/5 * * * *", periodic_id=SWEEP)
    @app.task(name=SWEEP, queue=QUEUE, queueing_lock=SWEEP, retry=Retry())
    def sweep_deliveries(timestamp: int) -> None:
        with connect(ctx.url) as conn:
            now = datetime.fromtimestamp(timestamp, timezone.utc)
            sweep(conn, ctx.tokens.integration().requester, now)

    @app.periodic(cron="*/15 * * * *", periodic_id=RECONCILE)
    @app.task(name=RECONCILE, queue=QUEUE, queueing_lock=RECONCILE, retry=Retry())
    def reconcile_ledger(timestamp: int) -> None:
        reconcile(ctx, datetime.fromtimestamp(timestamp, timezone.utc))

    del handle, publish, sweep_deliveries, reconcile_ledger


def queue_app(ctx: WorkerContext, locks: LivenessLocks) -> procrastinate.App:
    """The procrastinate app with rubricate's tasks, on the context's database; each worker it
    runs holds its liveness lock in `locks` while registered."""
    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=ctx.url))
    app.job_manager = LiveJobManager(app.connector, locks)
    register(app, ctx)
    return app
