"""A worker asked to stop that still runs some seconds later writes where each of its tasks
waits (and faulthandler each thread's stack), so a stop that hangs can be read from its log."""

from __future__ import annotations

import asyncio
import faulthandler
import logging

import pytest

from rubricate.serve.server import awaiting, report_if_slow_to_stop


async def _leaf(gate: asyncio.Event) -> None:
    await gate.wait()


async def _middle(gate: asyncio.Event) -> None:
    await _leaf(gate)


def test_a_task_is_shown_with_each_coroutine_it_awaits() -> None:
    async def main() -> list[str]:
        gate = asyncio.Event()
        task = asyncio.create_task(_middle(gate), name="held")
        await asyncio.sleep(0)
        try:
            return awaiting(task)
        finally:
            gate.set()
            await task

    found = asyncio.run(main())
    assert [step.split(" ")[0] for step in found][:3] == ["_middle", "_leaf", "wait"]
    assert all("test_slow_stop_report.py:" in step for step in found[:2])


def test_a_slow_stop_logs_its_unfinished_tasks(caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> None:
        gate = asyncio.Event()
        task = asyncio.create_task(_middle(gate), name="held-job")
        report_if_slow_to_stop(asyncio.get_running_loop(), after=0.05)
        await asyncio.sleep(0.3)
        faulthandler.cancel_dump_traceback_later()
        gate.set()
        await task

    with caplog.at_level(logging.WARNING, logger="rubricate.serve.server"):
        asyncio.run(main())
    messages = [record.getMessage() for record in caplog.records]
    assert messages[0].startswith("still stopping: ")
    held = [m for m in messages if m.startswith("task held-job waits in _middle")]
    assert len(held) == 1, messages
    assert "_leaf" in held[0]
