"""Which events lower a head's gate before they are evaluated, and how the lowering settles."""

from __future__ import annotations

from typing import Any

from rubricate.bot.effects import Log, SetStatus
from rubricate.bot.lowering import lowered, settled
from rubricate.bot.payload import parse_event
from rubricate.rubric.model import Rubric
from tests.bot.conftest import Harness, pr_payload

FIRST, SECOND = "a" * 40, "b" * 40


def _retarget(head: str) -> Any:
    payload = pr_payload("edited", head, at="2024-03-03T10:00:00Z")
    payload["changes"] = {"base": {"ref": {"from": "release-1"}}}
    return parse_event("pull_request", payload)


def test_a_retarget_lowers_its_head_and_a_push_does_not() -> None:
    low = lowered(_retarget(FIRST))
    assert isinstance(low, SetStatus)
    assert (low.sha, low.state) == (FIRST, "pending")
    assert "moved to" in low.description
    assert lowered(parse_event("pull_request", pr_payload("synchronize", FIRST))) is None
    title_only = pr_payload("edited", FIRST)
    title_only["changes"] = {"title": {"from": "Old"}}
    assert lowered(parse_event("pull_request", title_only)) is None


def test_the_pr_s_head_gets_its_gate_back_when_no_effect_sets_it(agora: Rubric) -> None:
    bot = Harness(agora)
    bot.open(FIRST)
    effects = settled(_retarget(FIRST), bot.job, agora, [Log("ignored")])
    [status] = [e for e in effects if isinstance(e, SetStatus)]
    assert status.sha == FIRST


def test_a_head_the_pr_has_left_keeps_its_lowering(agora: Rubric) -> None:
    bot = Harness(agora)
    bot.open(FIRST, "1" * 40)
    bot.push(SECOND, "2" * 40)
    effects = settled(_retarget(FIRST), bot.job, agora, [Log("ignored")])
    assert not [e for e in effects if isinstance(e, SetStatus)]


def test_an_effect_that_sets_the_head_s_gate_is_left_alone(agora: Rubric) -> None:
    bot = Harness(agora)
    bot.open(FIRST)
    own = SetStatus(FIRST, "failure", "rubricate: set by the core")
    assert settled(_retarget(FIRST), bot.job, agora, [own]) == [own]
