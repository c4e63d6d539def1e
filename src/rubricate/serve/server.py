"""Running the receiver and the workers: uvicorn, procrastinate, one event loop (shell).

`serve` runs uvicorn on the receiver; with a worker, both share the loop and uvicorn owns the
signals: when it stops, the worker finishes its jobs and stops too. `work` runs a worker alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import faulthandler
import importlib
import logging
import os
import signal
from collections.abc import Sequence
from types import FrameType
from typing import TYPE_CHECKING, Any

import uvicorn
from psycopg_pool import ConnectionPool

from rubricate.serve.app_auth import AppCredentials, InstallationTokens
from rubricate.serve.bounded_wait import ended, within
from rubricate.serve.context import WorkerContext
from rubricate.serve.queue import QUEUE
from rubricate.serve.receiver import create_app

if TYPE_CHECKING:
    import procrastinate
    from starlette.applications import Starlette

    from rubricate.serve.liveness import LivenessLocks

logger = logging.getLogger(__name__)
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
"""How the receiver and the workers write their warnings: each line with its time, to the
millisecond, its level and its logger."""
POLL_EVERY = 1.0
"""Seconds between a worker's looks for jobs whose time came: a new job is announced at once,
but a job put back until a time (a write refused by the installation's pace, a busy PR) is not
announced when that time comes (procrastinate looks every 5 s unless told)."""
STALLED_AFTER = 30.0
"""Seconds without a heartbeat after which a worker's jobs are put back in the queue, when its
liveness lock did not already show it gone (`rubricate.serve.liveness`)."""


def serve(
    url: str,
    secrets: Sequence[bytes],
    credentials: AppCredentials,
    host: str,
    port: int,
    with_worker: bool,
) -> None:
    """Serve until stopped."""
    log_with_times()
    # No check before each use (a round trip per delivery): the receiver runs a delivery again
    # on another connection when its connection is found broken (see `run_in_pool`).
    pool: ConnectionPool = ConnectionPool(
        url, min_size=1, max_size=8, kwargs={"autocommit": True}, open=True
    )
    try:
        server = uvicorn.Server(receiver_config(create_app(pool, secrets), host, port))
        if not with_worker:
            server.run()
            return
        asyncio.run(_both(server, url, credentials))
    finally:
        pool.close()


def receiver_config(app: Starlette, host: str, port: int) -> uvicorn.Config:
    """uvicorn's settings for the receiver: httptools' HTTP parser, and uvloop's event loop
    where it exists (not on Windows), each a few times cheaper than the pure-Python defaults."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http="httptools",
        loop="auto",
        log_level="info",
        log_config=uvicorn_logging(),
    )


def uvicorn_logging() -> dict[str, Any]:
    """uvicorn's own logging, its lines written in `LOG_FORMAT` as every other warning."""
    config = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    formatters = config["formatters"]
    formatters["default"].update(fmt=LOG_FORMAT, use_colors=False)
    request = '%(client_addr)s - "%(request_line)s" %(status_code)s'
    formatters["access"].update(fmt=LOG_FORMAT.replace("%(message)s", request), use_colors=False)
    return config


async def _both(server: uvicorn.Server, url: str, credentials: AppCredentials) -> None:
    # procrastinate is imported by the worker only: the receiver alone never loads it
    from rubricate.serve.liveness import LivenessLocks, recover
    from rubricate.serve.tasks import queue_app

    ctx = WorkerContext(url, InstallationTokens(credentials), dict(os.environ), jobs_at_once=1)
    locks = LivenessLocks(url)
    app = queue_app(ctx, locks)
    async with app.open_async():
        worker = asyncio.create_task(
            app.run_worker_async(
                queues=[QUEUE],
                concurrency=1,
                install_signal_handlers=False,
                fetch_job_polling_interval=POLL_EVERY,
            )
        )
        recovery = asyncio.create_task(recover(app.connector, locks, STALLED_AFTER))
        # uvicorn raises the signal that stopped it again once it has stopped; with these
        # handlers as the ones it restores, that second raise does nothing, so the worker is
        # stopped (and says so in the database) before the process ends.
        previous = {sig: signal.signal(sig, _after_uvicorn) for sig in _STOP_SIGNALS}
        try:
            await server.serve()
        finally:
            await _stopped(worker, recovery)
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            await locks.close()
            ctx.close()


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def log_with_times() -> None:
    """Warnings and errors to stderr in `LOG_FORMAT` (unless logging was set up already)."""
    logging.basicConfig(format=LOG_FORMAT, level=logging.WARNING)


def _after_uvicorn(_signal: int, _frame: FrameType | None) -> None:
    """Nothing: uvicorn has already stopped on this signal."""


def work(
    url: str, credentials: AppCredentials, concurrency: int, stalled_after: float, nice: int = 0
) -> None:
    """Run a worker until stopped by SIGINT or SIGTERM, starting it again whenever it stops on
    its own (the database went away: procrastinate stops a worker whose heartbeat fails). With
    `nice`, the process runs that much lower in the CPU's priority (a receiver beside it answers
    first)."""
    # procrastinate is imported by the worker only: the receiver alone never loads it
    from rubricate.serve.liveness import LivenessLocks
    from rubricate.serve.tasks import queue_app

    log_with_times()
    if nice:
        os.nice(nice)
    # A handle job scores the change with jsonschema, a few tenths of a second of CPU to
    # import: a worker alone loads it before it takes a job, so no job waits for it (serve
    # --with-worker does not: its receiver answers first).
    importlib.import_module("rubricate.evidence.autoscore")
    ctx = WorkerContext(
        url, InstallationTokens(credentials), dict(os.environ), jobs_at_once=concurrency
    )
    locks = LivenessLocks(url)
    try:
        asyncio.run(_supervise(queue_app(ctx, locks), locks, concurrency, stalled_after))
    finally:
        ctx.close()
        faulthandler.cancel_dump_traceback_later()


async def _supervise(
    app: procrastinate.App, locks: LivenessLocks, concurrency: int, stalled_after: float
) -> None:
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()

    def stop() -> None:
        stopping.set()
        report_if_slow_to_stop(loop)

    for sig in _STOP_SIGNALS:
        loop.add_signal_handler(sig, stop)
    wait = RESTART_FIRST
    down_since: float | None = None
    try:
        while not stopping.is_set():
            began = loop.time()
            try:
                await _run_until(app, locks, concurrency, stalled_after, stopping)
            except Exception as exc:  # the database is away: wait, then start again
                logger.warning("the worker stopped: %s", exc)
            if stopping.is_set():
                break
            now = loop.time()
            if down_since is None or now - began > RESTART_LAST:
                down_since = now  # a worker that ran a while: a new outage starts
            wait = restart_wait(wait, now - began, now - down_since)
            logger.warning("starting the worker again in %.1f s", wait)
            with contextlib.suppress(TimeoutError):
                await within(wait, stopping.wait())
    finally:
        await locks.close()


STOP_REPORT_AFTER = 20.0
"""Seconds after a stop request at which a worker still running writes what it waits for."""


def report_if_slow_to_stop(
    loop: asyncio.AbstractEventLoop, after: float = STOP_REPORT_AFTER
) -> None:
    """In `after` seconds, if the process still runs: each thread's stack (written even when
    the event loop is blocked), and each unfinished task's, to stderr."""
    faulthandler.dump_traceback_later(after, exit=False)
    loop.call_later(after, _log_tasks)


def _log_tasks() -> None:
    pending = [task for task in asyncio.all_tasks() if not task.done()]
    logger.warning("still stopping: %d tasks unfinished", len(pending))
    for task in pending:
        logger.warning("task %s waits in %s", task.get_name(), " <- ".join(awaiting(task)))


def awaiting(task: asyncio.Task[object]) -> list[str]:
    """Where a task waits: each coroutine it awaits, outermost first, as `function (file:line)`."""
    found: list[str] = []
    step: Any = task.get_coro()
    while step is not None:
        frame = getattr(step, "cr_frame", None) or getattr(step, "gi_frame", None)
        if frame is not None:
            code = frame.f_code
            found.append(f"{code.co_name} ({code.co_filename}:{frame.f_lineno})")
        step = getattr(step, "cr_await", None) or getattr(step, "gi_yieldfrom", None)
    return found


RESTART_FIRST = 0.5
RESTART_LAST = 30.0
QUICK_RESTARTS_FOR = 10.0
"""A worker that stopped on its own starts again every 0.5 s for the first 10 s of an outage (a
database restart is back within seconds, and the deliveries stored meanwhile wait for a worker),
then after 1 s, 2 s … at most 30 s."""


def restart_wait(previous: float, ran_for: float, down_for: float) -> float:
    """Seconds before starting again a worker that stopped on its own after running `ran_for`
    seconds, `down_for` seconds into an outage, having waited `previous` last time."""
    if ran_for > RESTART_LAST or down_for < QUICK_RESTARTS_FOR:
        return RESTART_FIRST
    return min(RESTART_LAST, previous * 2)


async def _run_until(
    app: procrastinate.App,
    locks: LivenessLocks,
    concurrency: int,
    stalled_after: float,
    stopping: asyncio.Event,
) -> None:
    """Run the worker (and the recovery of gone workers' jobs) until it stops or `stopping` is
    set; a stop request lets the running jobs finish first."""
    # procrastinate is imported by the worker only: the receiver alone never loads it
    from rubricate.serve.liveness import recover

    async with app.open_async():
        worker = asyncio.create_task(
            app.run_worker_async(
                queues=[QUEUE],
                concurrency=concurrency,
                install_signal_handlers=False,
                fetch_job_polling_interval=POLL_EVERY,
                update_heartbeat_interval=stalled_after / 3,
                stalled_worker_timeout=stalled_after,
            )
        )
        recovery = asyncio.create_task(recover(app.connector, locks, stalled_after))
        stop = asyncio.create_task(stopping.wait())
        try:
            await asyncio.wait({worker, stop}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            outcome = await _stopped(worker, recovery, stop)
        if isinstance(outcome, Exception):
            raise outcome


async def _stopped(
    worker: asyncio.Task[None], recovery: asyncio.Task[None], *rest: asyncio.Task[Any]
) -> object:
    """Stop the worker, cancelled once (a second cancel would cut its running jobs short), and
    the recovery loop, cancelled until it ends; the worker's outcome (None, or its exception)."""
    for task in (worker, recovery, *rest):
        task.cancel()
    outcomes = await asyncio.gather(worker, *rest, return_exceptions=True)
    await ended(recovery)
    return outcomes[0]
