"""`within`: a bounded wait that never loses its caller's cancellation (asyncio.wait_for before
Python 3.12 returns the result instead when both happen at once, and a worker's recovery loop
then never stopped)."""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
from collections.abc import Awaitable, Callable

import pytest

from rubricate.serve.bounded_wait import ended, within


async def cancelled_as_it_finishes(bound: Callable[[asyncio.Future[int]], Awaitable[int]]) -> str:
    """Cancel a task waiting through `bound` in the very loop turn its future gets a result."""
    inner: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    outer = asyncio.create_task(bound(inner))
    await asyncio.sleep(0)
    inner.set_result(1)
    outer.cancel()
    try:
        return f"returned {await outer}"
    except asyncio.CancelledError:
        return "cancelled"


def test_a_cancellation_at_the_moment_the_wait_ends_is_raised() -> None:
    assert asyncio.run(cancelled_as_it_finishes(lambda inner: within(5, inner))) == "cancelled"


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="wait_for keeps the cancel since 3.12")
def test_wait_for_loses_that_cancellation_before_python_3_12() -> None:
    found = asyncio.run(cancelled_as_it_finishes(lambda inner: asyncio.wait_for(inner, 5)))
    assert found == "returned 1"


def test_a_task_that_lost_a_cancellation_is_cancelled_again_until_it_ends() -> None:
    async def stubborn(seen: list[int]) -> None:
        while True:
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                seen.append(1)
                if len(seen) == 3:
                    raise

    async def main() -> tuple[bool, int]:
        seen: list[int] = []
        task = asyncio.create_task(stubborn(seen))
        await asyncio.sleep(0)
        await ended(task, every=0.01)
        return task.cancelled(), len(seen)

    assert asyncio.run(main()) == (True, 3)


def test_a_timed_out_task_whose_cleanup_failed_is_not_reported_as_unread(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def fails_when_cancelled() -> None:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            raise RuntimeError("cleanup failed") from None

    async def main() -> None:
        with pytest.raises(TimeoutError):
            await within(0.01, fails_when_cancelled())
        await asyncio.sleep(0.05)

    with caplog.at_level(logging.ERROR, logger="asyncio"):
        asyncio.run(main())
        gc.collect()
    assert [r.getMessage() for r in caplog.records] == []


def test_the_result_or_the_error_of_what_finished_in_time() -> None:
    async def fails() -> int:
        raise ValueError("no")

    async def answers() -> int:
        return 42

    assert asyncio.run(within(5, answers())) == 42
    with pytest.raises(ValueError, match="no"):
        asyncio.run(within(5, fails()))


def test_what_takes_too_long_is_cancelled_and_a_timeout_raised() -> None:
    async def main() -> tuple[bool, str]:
        gate = asyncio.Event()
        slow = asyncio.ensure_future(gate.wait())
        try:
            await within(0.01, slow)
        except TimeoutError as exc:
            await asyncio.sleep(0)
            return slow.cancelled(), str(exc)
        return False, "no timeout"

    assert asyncio.run(main()) == (True, "not done within 0.01 s")


def test_the_caller_cancelled_while_waiting_cancels_what_it_waited_for() -> None:
    async def main() -> bool:
        gate = asyncio.Event()
        slow = asyncio.ensure_future(gate.wait())
        waiter = asyncio.create_task(within(60, slow))
        await asyncio.sleep(0)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        await asyncio.sleep(0)
        return slow.cancelled()

    assert asyncio.run(main())
