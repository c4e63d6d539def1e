"""The progress line of long commands: on a terminal only, after a delay, wiped at the end."""

from __future__ import annotations

import io
import time

import pytest

from rubricate.cli.main import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def wait_for(stream: io.StringIO, text: str) -> None:
    deadline = time.monotonic() + 10
    while text not in stream.getvalue() and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_long_run_shows_its_step_on_a_terminal_and_wipes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    stream = Terminal()
    with Progress(stream, delay=0.01, interval=0.01) as progress:
        progress.step("reading the change")
        wait_for(stream, "rubricate: reading the change (")
        progress.say("a message of its own")
        wait_for(stream, "a message of its own\n\r\x1b[Krubricate: reading the change (")
    text = stream.getvalue()
    assert "\r\x1b[Krubricate: reading the change (0 s)" in text
    assert "\r\x1b[Ka message of its own\n" in text
    assert text.endswith("\r\x1b[K")


def test_a_short_run_prints_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    stream = Terminal()
    with Progress(stream, delay=60) as progress:
        progress.step("quick")
    assert stream.getvalue() == ""


@pytest.mark.parametrize("actions", [True, False])
def test_pipes_and_actions_logs_stay_quiet(monkeypatch: pytest.MonkeyPatch, actions: bool) -> None:
    if actions:
        monkeypatch.setenv("GITHUB_ACTIONS", "true")
        stream: io.StringIO = Terminal()
    else:
        monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
        stream = io.StringIO()
    with Progress(stream, delay=0, interval=0.01) as progress:
        assert not progress.enabled
        progress.step("anything")
        time.sleep(0.05)
        progress.say("said")
    assert stream.getvalue() == "said\n"
