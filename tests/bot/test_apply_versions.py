"""A command applies to the version its author saw: a comment or review about an older one is
refused, with a request to re-check (a review of a head not yet recorded: for a re-run).

Also the `scores` rule shared with the ledger fold: an absent criterion means "no information",
an explicit null "not applicable", and a later explicit null replaces an earlier value.
"""

from __future__ import annotations

import copy
from dataclasses import replace

from rubricate.bot.effects import AppendEvents, MarkAnswered, PostComment, SetStatus
from rubricate.bot.events import ReviewEvent
from rubricate.bot.payload import parse_event

from .conftest import AGORA_AUTO, AGORA_PASS, MAINTAINER, Harness, kinds, load_fixture, of_type

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


def test_a_review_of_the_unrecorded_head_is_left_for_a_rerun(bot: Harness) -> None:
    """Only this refusal may be retried: its comment is not marked answered, so a re-run of the
    job, once the push is recorded, applies it; any other refusal is answered for good."""
    bot.open(A, TREE1)
    event = replace(review(PASS, B, at="2024-03-02T11:00:00Z"), pr_head_sha=B)
    unrecorded = bot.run(event, role="write")
    assert "has not recorded as a version yet" in reply(unrecorded)
    assert not of_type(unrecorded, AppendEvents)
    assert not of_type(unrecorded, MarkAnswered)
    event = replace(review(PASS, C, at="2024-03-02T11:00:00Z", review_id=556), pr_head_sha=B)
    unknown = bot.run(event, role="write")
    assert "has not seen as a head" in reply(unknown)
    assert of_type(unknown, MarkAnswered) == [MarkAnswered("review:556")]
