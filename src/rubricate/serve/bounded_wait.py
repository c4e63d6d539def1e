"""Waiting for an awaitable at most some seconds, without ever losing a cancellation (shell).

`asyncio.wait_for` before Python 3.12 returns the awaitable's result when the waiting task is
cancelled at the moment the awaitable finishes: the cancellation is lost, and a loop meant to
stop on it runs on for ever (a worker that then never stops). `within` waits with
`asyncio.wait`, which always lets the caller's cancellation through; `ended` cancels a task
until it is done, for a task whose libraries may still use `wait_for`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

T = TypeVar("T")


async def within(seconds: float, awaitable: Awaitable[T]) -> T:
    """The awaitable's result; `TimeoutError` after `seconds` (the awaitable is then cancelled).
    A cancellation of the caller cancels the awaitable and is raised, whatever its state."""
    task = asyncio.ensure_future(awaitable)
    try:
        done, _ = await asyncio.wait({task}, timeout=seconds)
    except asyncio.CancelledError:
        _drop(task)
        raise
    if not done:
        _drop(task)
        raise TimeoutError(f"not done within {seconds:g} s")
    return task.result()


async def ended(task: asyncio.Task[Any], every: float = 1.0) -> None:
    """Cancel `task`, again every `every` seconds until it is done: a library's own
    `asyncio.wait_for` inside it may lose one cancellation. Its outcome is dropped."""
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=every)
    _drop(task)


def _drop(task: asyncio.Future[Any]) -> None:
    """Cancel a task whose outcome nobody reads, and read it when it comes (no "exception
    never retrieved" warning from a cleanup that failed)."""
    task.cancel()
    task.add_done_callback(_outcome_read)


def _outcome_read(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()
