"""Running the receiver and the workers: uvicorn, procrastinate, one event loop (shell).

`serve` runs uvicorn on the receiver; with a worker, both share the loop and uvicorn owns the
signals: when it stops, the worker finishes its jobs and stops too. `work` runs a worker alone.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Sequence
from types import FrameType

import uvicorn
from psycopg_pool import ConnectionPool

from rubricate.serve.app_auth import AppCredentials, InstallationTokens
from rubricate.serve.context import WorkerContext
from rubricate.serve.queue import QUEUE
from rubricate.serve.receiver import create_app


def serve(
    url: str,
    secrets: Sequence[bytes],
    credentials: AppCredentials,
    host: str,
    port: int,
    with_worker: bool,
) -> None:
    """Serve until stopped."""
    pool: ConnectionPool = ConnectionPool(
        url, min_size=1, max_size=8, kwargs={"autocommit": True}, open=True
    )
    try:
        config = uvicorn.Config(create_app(pool, secrets), host=host, port=port, log_level="info")
        server = uvicorn.Server(config)
        if not with_worker:
            server.run()
            return
        asyncio.run(_both(server, url, credentials))
    finally:
        pool.close()


async def _both(server: uvicorn.Server, url: str, credentials: AppCredentials) -> None:
    from rubricate.serve.tasks import queue_app

    app = queue_app(WorkerContext(url, InstallationTokens(credentials), dict(os.environ)))
    async with app.open_async():
        worker = asyncio.create_task(
            app.run_worker_async(queues=[QUEUE], concurrency=1, install_signal_handlers=False)
        )
        # uvicorn raises the signal that stopped it again once it has stopped; with these
        # handlers as the ones it restores, that second raise does nothing, so the worker is
        # stopped (and says so in the database) before the process ends.
        previous = {sig: signal.signal(sig, _after_uvicorn) for sig in _STOP_SIGNALS}
        try:
            await server.serve()
        finally:
            worker.cancel()
            await asyncio.gather(worker, return_exceptions=True)
            for sig, handler in previous.items():
                signal.signal(sig, handler)


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _after_uvicorn(_signal: int, _frame: FrameType | None) -> None:
    """Nothing: uvicorn has already stopped on this signal."""


def work(url: str, credentials: AppCredentials, concurrency: int) -> None:
    """Run a worker until stopped."""
    from rubricate.serve.tasks import queue_app

    app = queue_app(WorkerContext(url, InstallationTokens(credentials), dict(os.environ)))
    app.run_worker(queues=[QUEUE], concurrency=concurrency)
