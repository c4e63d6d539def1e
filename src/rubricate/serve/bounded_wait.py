"""Waiting for an awaitable at most some seconds, without ever losing a cancellation (shell).

`asyncio.wait_for` before Python 3.12 returns the awaitable's result when the waiting task is
cancelled at the moment the awaitable finishes: the cancellation is lost, and a loop meant to
stop on it runs on for ever (a worker that then never stops). `within` waits with
`asyncio.wait`, which always lets the caller's cancellation through.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def within(seconds: float, awaitable: Awaitable[T]) -> T:
    """The awaitable's result; `TimeoutError` after `seconds` (the awaitable is then cancelled).
    A cancellation of the caller cancels the awaitable and is raised, whatever its state."""
    task = asyncio.ensure_future(awaitable)
    try:
        done, _ = await asyncio.wait({task}, timeout=seconds)
    except asyncio.CancelledError:
        task.cancel()
        raise
    if not done:
        task.cancel()
        raise TimeoutError(f"not done within {seconds:g} s")
    return task.result()
