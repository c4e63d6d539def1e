"""Authorization matrix: roles x commands x {author, other, bot}."""

from __future__ import annotations

import pytest

from rubricate.bot.command_table import COMMANDS, ROLE_ORDER
from rubricate.bot.commands import authorize
from rubricate.bot.events import Ignored
from rubricate.bot.payload import parse_event
from rubricate.config import Config, load_config

from .conftest import AUTHOR, comment_payload

DEFAULT_MINIMUM = {
    "score": "write",
    "approve": "write",
    "revise": "write",
    "rate": "write",
    "override": "maintain",
    "dispute": "maintain",
    "rubric": "none",
    "help": "none",
}
ROLES = Config().commands.roles
NOT_BY_AUTHOR = {"score", "approve", "override", "rate"}


@pytest.mark.parametrize("role", ROLE_ORDER)
@pytest.mark.parametrize("command", [spec.name for spec in COMMANDS])
@pytest.mark.parametrize("who", ["author", "other"])
def test_matrix(role: str, command: str, who: str) -> None:
    actor = AUTHOR if who == "author" else "someone-else"
    decision = authorize(command, actor, role, AUTHOR, ROLES)
    enough = ROLE_ORDER.index(role) >= ROLE_ORDER.index(DEFAULT_MINIMUM[command])  # type: ignore[arg-type]
    expected = enough and not (who == "author" and command in NOT_BY_AUTHOR)
    assert decision.allowed is expected
    if not expected:
        assert decision.reason


@pytest.mark.parametrize("command", [spec.name for spec in COMMANDS])
def test_bots_are_ignored_before_authorization(command: str) -> None:
    payload = comment_payload(f"/{command}", actor="helper[bot]")
    assert isinstance(parse_event("issue_comment", payload), Ignored)
    payload = comment_payload(f"/{command}", actor="svc-account")
    payload["comment"]["user"]["type"] = "Bot"
    assert isinstance(parse_event("issue_comment", payload), Ignored)


def test_author_may_revise_dispute_and_read_but_not_score_their_own_pr() -> None:
    assert authorize("revise", AUTHOR, "admin", AUTHOR, ROLES).allowed
    assert authorize("dispute", AUTHOR, "admin", AUTHOR, ROLES).allowed
    refused = authorize("score", AUTHOR.upper(), "admin", AUTHOR, ROLES)
    assert not refused.allowed
    assert "author" in refused.reason


def test_configured_roles_override_the_defaults() -> None:
    roles = load_config("commands:\n  roles: {score: triage, rubric: write}\n").commands.roles
    assert authorize("score", "x", "triage", AUTHOR, roles).allowed
    assert not authorize("rubric", "x", "read", AUTHOR, roles).allowed
    assert not authorize("override", "x", "write", AUTHOR, roles).allowed


def test_unknown_role_and_command_are_refused_with_reasons() -> None:
    decision = authorize("score", "x", "superuser", AUTHOR, ROLES)
    assert not decision.allowed
    assert "you have none" in decision.reason
    assert not authorize("deploy", "x", "admin", AUTHOR, ROLES).allowed
