"""The one rule for the scores a `final_approval` carries (shared by merge and catch-up)."""

from __future__ import annotations

from datetime import datetime, timezone
from types import SimpleNamespace

from rubricate.bot.standing import FinalChoice, final_choice
from rubricate.catchup import plan_catch_up
from rubricate.ledger.event import Event
from rubricate.rubric.model import Rubric

from .conftest import AGORA_AUTO, AGORA_PASS, REPO, Harness

APPROVE_FAIL = "/approve spec=3 completeness=3 quality=1 verif=3 format=3"
REASON = "/override The quality gap is tracked in #12 and accepted."


def test_a_passing_approval_carries_its_scores_and_totals(bot: Harness) -> None:
    bot.open(scores=AGORA_AUTO)
    bot.say("/approve " + " ".join(f"{k}={v}" for k, v in AGORA_PASS.items()))
    choice = final_choice(bot.job, 1)
    assert (choice.gate, choice.source, choice.verdict) == ("passed", "reviewer", "pass")
    assert choice.scores == AGORA_PASS
    assert (choice.weighted_total, choice.normalized) == (4.1, 0.775)


def test_a_failing_approval_is_bypassed_unless_overridden(bot: Harness) -> None:
    bot.open(scores=AGORA_AUTO)
    bot.say(APPROVE_FAIL)
    assert final_choice(bot.job, 1).gate == "bypassed"
    bot.say(REASON, actor="maintainer-mia", role="maintain", comment_id=1002)
    choice = final_choice(bot.job, 1)
    assert (choice.gate, choice.override_reason) == (
        "overridden",
        "The quality gap is tracked in #12 and accepted.",
    )


def test_without_an_approval_reviewer_scores_then_automatic_ones(bot: Harness) -> None:
    bot.open(scores=AGORA_AUTO)
    auto = final_choice(bot.job, 1)
    assert (auto.gate, auto.source, auto.scores) == ("bypassed", "auto", AGORA_AUTO)
    assert auto.normalized is None
    bot.say("/score quality=2")
    reviewer = final_choice(bot.job, 1)
    assert (reviewer.source, reviewer.scores, reviewer.weighted_total) == (
        "reviewer",
        {"quality": 2},
        None,
    )


def test_a_version_without_scores_has_none(agora: Rubric) -> None:
    assert final_choice(Harness(agora).job, 1) == FinalChoice(gate="bypassed")


def _catch_up(job_events: list[Event], head: str) -> Event:
    merged_at = datetime(2024, 3, 5, 12, tzinfo=timezone.utc)
    pull = SimpleNamespace(
        number=7,
        author="agent",
        head_sha=head,
        created_at=None,
        closed_at=merged_at,
        merged_at=merged_at,
        milestone_due_on=None,
    )
    since = datetime(2024, 1, 1, tzinfo=timezone.utc)
    [final] = plan_catch_up([pull], job_events, repo=REPO, since=since)
    return final


def test_catch_up_and_the_bot_agree_on_an_unreviewed_push_that_merged(bot: Harness) -> None:
    """v1 approved, then a push no run recorded is merged: both record `bypassed`."""
    bot.open(scores=AGORA_AUTO)
    bot.say("/approve " + " ".join(f"{k}={v}" for k, v in AGORA_PASS.items()))
    before = list(bot.ledger)
    caught = _catch_up(before, "c" * 40)
    bot.close(merged=True, head="c" * 40)
    [merged] = [e for e in bot.ledger if e.kind == "final_approval"]
    assert (merged.gate, merged.version) == ("bypassed", 2)
    assert (caught.gate, caught.version, caught.scores) == ("bypassed", 2, None)
    assert caught.tree_sha is None
    approved = _catch_up(before, "a" * 40)
    assert (approved.gate, approved.version, approved.tree_sha) == ("passed", 1, "1" * 40)
