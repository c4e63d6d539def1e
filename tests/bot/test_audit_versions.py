"""Audit regressions: which version a head, a review or a comment belongs to (findings 1, 2, 11).

Also the `scores` rule shared with the ledger fold: an absent criterion means "no information",
an explicit null "not applicable", and a later explicit null replaces an earlier value.
"""

from __future__ import annotations

import copy

from rubricate.bot.effects import AppendEvents, Log, PostComment, SetStatus
from rubricate.bot.events import ReviewEvent
from rubricate.bot.payload import parse_event

from .conftest import (
    AGORA_AUTO,
    AGORA_PASS,
    MAINTAINER,
    Harness,
    kinds,
    load_fixture,
    of_type,
)

A, B, C = "a" * 40, "b" * 40, "c" * 40
TREE1, TREE2 = "1" * 40, "2" * 40
PASS = "/approve " + " ".join(f"{k}={v}" for k, v in AGORA_PASS.items())
LOW = "/approve " + " ".join(f"{k}=2" for k in AGORA_PASS)
REASON = "/override The low scores are accepted for this experiment."


def statuses(effects: list[object]) -> list[tuple[str, str]]:
    return [(s.sha, s.state) for s in of_type(effects, SetStatus)]  # type: ignore[arg-type]


def reply(effects: list[object]) -> str:
    (posted,) = of_type(effects, PostComment)  # type: ignore[arg-type]
    return str(posted.body)


def review(body: str, commit: str, *, at: str, review_id: int = 555) -> ReviewEvent:
    payload = copy.deepcopy(load_fixture("pull_request_review.submitted.json"))
    payload["review"].update(body=body, commit_id=commit, submitted_at=at, id=review_id)
    event = parse_event("pull_request_review", payload)
    assert isinstance(event, ReviewEvent)
    return event


def test_force_push_back_to_a_failing_version_is_not_green(bot: Harness) -> None:
    bot.open(A, TREE1)
    bot.say(LOW, comment_id=1, at="2024-03-01T11:00:00Z")
    bot.push(B, TREE2, at="2024-03-02T10:00:00Z")
    bot.say(PASS, comment_id=2, at="2024-03-02T11:00:00Z")
    effects = bot.push(A, TREE1, at="2024-03-03T10:00:00Z")
    assert statuses(effects) == [(A, "failure")]
    assert kinds(effects) == ["review_scored"]
    assert bot.job.current_version == 1
    assert bot.job.current is not None
    assert bot.job.current.since.day == 3
    final = of_type(bot.close(merged=True, head=A), AppendEvents)[0].events[0]
    assert (final.version, final.gate, final.verdict) == (1, "bypassed", "fail")


def test_force_push_back_to_an_unapproved_version_is_pending(bot: Harness) -> None:
    bot.open(A, TREE1)
    bot.push(B, TREE2, at="2024-03-02T10:00:00Z")
    bot.say(PASS, comment_id=2, at="2024-03-02T11:00:00Z")
    assert statuses(bot.effects) == [(B, "success")]
    effects = bot.push(A, TREE1, at="2024-03-03T10:00:00Z")
    assert statuses(effects) == [(A, "pending")]
    assert "v1" in of_type(effects, SetStatus)[0].description


def test_a_new_head_with_an_older_tree_gets_that_versions_own_gate(bot: Harness) -> None:
    bot.open(A, TREE1)
    bot.say(PASS, comment_id=1, at="2024-03-01T11:00:00Z")
    bot.push(B, TREE2, at="2024-03-02T10:00:00Z")
    effects = bot.push(C, TREE1, at="2024-03-03T10:00:00Z")
    assert statuses(effects) == [(C, "success")], "the approved tree is back: its approval stands"
    assert bot.job.current is not None
    assert (bot.job.current.number, bot.job.current.heads) == (1, (A, C))
    final = of_type(bot.close(merged=True, head=C), AppendEvents)[0].events[0]
    assert (final.version, final.gate) == (1, "passed")


def test_going_back_and_forth_records_each_return_once(bot: Harness) -> None:
    bot.open(A, TREE1)
    bot.push(B, TREE2, at="2024-03-02T10:00:00Z")
    bot.push(A, TREE1, at="2024-03-03T10:00:00Z")
    again = bot.push(A, TREE1, at="2024-03-03T10:00:00Z")
    assert not of_type(again, AppendEvents), "a replayed return records nothing"
    bot.push(B, TREE2, at="2024-03-04T10:00:00Z")
    assert bot.job.current_version == 2
    assert [v.number for v in bot.job.versions] == [1, 2]
    assert len(bot.ledger) == 4


def test_a_score_after_a_return_to_v1_is_not_a_first_submission(bot: Harness) -> None:
    bot.open(A, TREE1, scores=AGORA_AUTO)
    bot.push(B, TREE2, at="2024-03-02T10:00:00Z")
    bot.push(A, TREE1, at="2024-03-03T10:00:00Z")
    effects = bot.say("/score quality=5", at="2024-03-03T11:00:00Z")
    assert kinds(effects) == ["review_scored"]
    assert of_type(effects, AppendEvents)[0].events[0].version == 1
    assert "quality" not in bot.job.first_submission


def test_a_comment_written_before_the_push_is_refused(bot: Harness) -> None:
    bot.open(A, TREE1)
    bot.push(B, TREE2, at="2024-03-02T10:00:00Z")
    effects = bot.say(PASS, comment_id=3, at="2024-03-02T09:00:00Z")
    assert not of_type(effects, AppendEvents)
    assert not statuses(effects)
    assert 2 not in bot.job.approvals
    assert "a new version, v2, was pushed after this comment was written" in reply(effects)
    assert "re-check" in reply(effects)


def test_a_stale_comment_may_still_request_changes(bot: Harness) -> None:
    bot.open(A, TREE1)
    bot.push(B, TREE2, at="2024-03-02T10:00:00Z")
    effects = bot.say("/revise add tests", comment_id=3, at="2024-03-02T09:00:00Z")
    assert kinds(effects) == ["revision_requested"]


def test_a_stale_override_is_refused(bot: Harness) -> None:
    bot.open(A, TREE1)
    bot.say(LOW, comment_id=1, at="2024-03-01T11:00:00Z")
    bot.push(C, TREE1, at="2024-03-02T10:00:00Z")
    late = bot.say(
        REASON, actor=MAINTAINER, role="maintain", comment_id=2, at="2024-03-01T12:00:00Z"
    )
    assert kinds(late) == ["approved"], "a rebase keeps the tree: the version did not change"
    bot.push(B, TREE2, at="2024-03-03T10:00:00Z")
    bot.say(LOW, comment_id=3, at="2024-03-03T11:00:00Z")
    effects = bot.say(
        REASON, actor=MAINTAINER, role="maintain", comment_id=4, at="2024-03-03T09:00:00Z"
    )
    assert not of_type(effects, AppendEvents)
    assert "v2, was pushed" in reply(effects)


def test_a_review_of_an_old_commit_is_refused(bot: Harness) -> None:
    bot.open(A, TREE1)
    bot.push(B, TREE2, at="2024-03-02T10:00:00Z")
    effects = bot.run(review(PASS, A, at="2024-03-02T11:00:00Z"), role="write")
    assert not of_type(effects, AppendEvents)
    assert not statuses(effects)
    text = reply(effects)
    assert "this review is of commit aaaaaaa, which is not a head of the current version v2" in text


def test_a_review_of_the_current_head_applies(bot: Harness) -> None:
    bot.open(A, TREE1)
    bot.push(B, TREE2, at="2024-03-02T10:00:00Z")
    effects = bot.run(review(PASS, B, at="2024-03-02T11:00:00Z"), role="write")
    assert kinds(effects) == ["review_scored", "approved"]
    assert statuses(effects) == [(B, "success")]


def test_a_review_of_a_rebased_head_of_the_current_tree_applies(bot: Harness) -> None:
    bot.open(A, TREE1)
    bot.push(C, TREE1, at="2024-03-02T10:00:00Z")
    effects = bot.run(review(PASS, A, at="2024-03-02T11:00:00Z"), role="write")
    assert kinds(effects)[-1] == "approved"
    assert statuses(effects) == [(C, "success")]


def test_an_opened_event_handled_after_the_push_is_ignored(bot: Harness) -> None:
    bot.push(B, TREE2, at="2024-03-02T10:00:00Z")
    effects = bot.open(A, TREE1, at="2024-03-01T10:00:00Z")
    assert not of_type(effects, AppendEvents)
    assert not statuses(effects)
    assert any("older than the latest head event" in e.message for e in of_type(effects, Log))
    assert bot.job.current is not None
    assert bot.job.current.head_sha == B


def test_a_late_rebase_event_does_not_move_the_head_back(bot: Harness) -> None:
    bot.open(A, TREE1)
    bot.push(C, TREE1, at="2024-03-02T12:00:00Z")
    effects = bot.push(B, TREE1, at="2024-03-02T11:00:00Z")
    assert not of_type(effects, AppendEvents)
    assert bot.job.current is not None
    assert bot.job.current.head_sha == C


def test_a_rerun_of_the_opened_event_after_close_does_not_reopen(bot: Harness) -> None:
    bot.open(A, TREE1)
    bot.close(merged=False, head=A, at="2024-03-05T12:00:00Z")
    effects = bot.open(A, TREE1, at="2024-03-01T10:00:00Z")
    assert not of_type(effects, AppendEvents)
    assert bot.job.abandoned


def test_automatic_events_leave_unscored_criteria_out(bot: Harness) -> None:
    bot.open(A, TREE1, scores={"spec_adherence": 3})
    (first,) = bot.ledger
    assert first.scores == {"spec_adherence": 3}
    bot.push(B, TREE2, at="2024-03-02T10:00:00Z", scores={})
    assert bot.ledger[-1].scores == {}


def test_a_later_explicit_null_replaces_an_earlier_reviewer_value(agora: object) -> None:
    from rubricate.rubric.model import Rubric

    assert isinstance(agora, Rubric)
    nullable = agora.model_copy(
        update={
            "criteria": tuple(
                c.model_copy(update={"nullable": c.id == "quality"}) for c in agora.criteria
            )
        }
    )
    bot = Harness(nullable)
    bot.open(A, TREE1, scores={"quality": 3})
    bot.say("/score quality=4", comment_id=1, at="2024-03-01T11:00:00Z")
    effects = bot.say("/score quality=null", actor="other-writer", comment_id=2)
    scored, first = of_type(effects, AppendEvents)[0].events
    assert scored.scores == {"quality": None}
    assert first.scores == {"quality": None}
    assert bot.job.reviewer_scores[1] == {"quality": None}
    assert bot.job.first_submission == {"quality": None}
    assert bot.job.first_sources["quality"] == "reviewer"
    approve = "/approve spec=4 completeness=4 verif=4 format=4"
    approved = of_type(bot.say(approve, comment_id=3, at="2024-03-01T13:00:00Z"), AppendEvents)
    assert (approved[0].events[-1].scores or {})["quality"] is None
