"""A comment's body is read for commands once per run: the event carries what was parsed, and
the role lookup and the handler use that."""

from __future__ import annotations

import pytest

from rubricate.bot import commands
from tests.action.scenario import WRITER, Scenario


def test_a_comment_is_parsed_for_commands_once(
    opened: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    bodies: list[str] = []
    lines = commands.command_lines

    def counted(body: str) -> list[tuple[int, str]]:
        bodies.append(body)
        return lines(body)

    monkeypatch.setattr(commands, "command_lines", counted)
    step = opened.comment(WRITER, "/score spec=4 comp=4 qual=3 ver=3 format=4")
    assert step.code == 0, step.log
    assert bodies == ["/score spec=4 comp=4 qual=3 ver=3 format=4"]
