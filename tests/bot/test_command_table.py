"""A slash command is declared once: the table drives parsing, roles, help, docs and handling."""

from __future__ import annotations

import pytest

from rubricate.bot import apply, command_table
from rubricate.bot.apply import CommandResult, handles
from rubricate.bot.command_table import COMMANDS, Command
from rubricate.bot.commands import ParsedCommand, authorize, parse_commands
from rubricate.bot.effects import PostComment
from rubricate.bot.replies import Reply, help_markdown
from rubricate.config import Config, load_config
from rubricate.rubric.model import Rubric
from rubricate.schemas import config_schema
from tests.action.docs_reference import command_table as docs_table

from .conftest import AUTHOR, Harness, of_type

PING = Command("ping", "/ping <text>", "Answer with pong.", "text", "any", "triage", False)


@pytest.fixture
def with_ping(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table with one more command, and its handler."""
    monkeypatch.setattr(command_table, "COMMANDS", (*COMMANDS, PING))
    monkeypatch.setattr(apply, "HANDLERS", dict(apply.HANDLERS))

    @handles("ping")
    def _ping(item, inv, job, ctx):  # type: ignore[no-untyped-def]
        return CommandResult(reply=Reply(item, f"pong: {item.text}", refused=False), applied=True)


def test_every_command_has_one_handler_and_every_handler_a_command() -> None:
    assert sorted(apply.HANDLERS) == sorted(c.name for c in COMMANDS)


@pytest.mark.usefixtures("with_ping")
def test_a_new_command_is_parsed_authorized_documented_and_handled(agora: Rubric) -> None:
    [item] = parse_commands("/PING hello there")
    assert isinstance(item, ParsedCommand)
    assert (item.name, item.text) == ("ping", "hello there")

    roles = Config().commands.roles
    assert roles["ping"] == "triage"
    assert authorize("ping", "someone", "triage", AUTHOR, roles).allowed
    assert not authorize("ping", "someone", "read", AUTHOR, roles).allowed
    assert not authorize("ping", AUTHOR, "admin", AUTHOR, roles).allowed
    assert load_config("commands:\n  roles: {ping: admin}\n").commands.roles["ping"] == "admin"

    assert "`/ping <text>`" in help_markdown(roles)
    assert "| `/ping <text>` | triage | any time | Answer with pong. |" in docs_table()
    roles_schema = config_schema()["$defs"]["CommandsConfig"]["properties"]["roles"]
    assert "ping" in roles_schema["propertyNames"]["enum"]
    assert roles_schema["default"]["ping"] == "triage"

    bot = Harness(agora)
    bot.open()
    effects = bot.say("/ping hello", role="triage")
    [posted] = of_type(effects, PostComment)
    assert "pong: hello" in posted.body
