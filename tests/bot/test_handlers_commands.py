"""Slash commands at the right and the wrong moments, replies, reactions and replays."""

from __future__ import annotations

from dataclasses import replace

from rubricate.bot.effects import (
    AppendEvents,
    MarkAnswered,
    PostComment,
    React,
    SetOutputs,
    SetStatus,
    UpsertComment,
)
from rubricate.bot.events import CommentEvent, HandlerContext, Ignored
from rubricate.bot.handlers import handle
from rubricate.bot.payload import parse_event
from rubricate.rubric.model import Rubric

from .conftest import (
    AGORA_AUTO,
    AGORA_PASS,
    AUTHOR,
    MAINTAINER,
    NOW,
    REPO,
    WRITER,
    Harness,
    comment_payload,
    kinds,
    load_fixture,
    of_type,
)

APPROVE_PASS = "/approve " + " ".join(f"{k}={v}" for k, v in AGORA_PASS.items())
APPROVE_FAIL = "/approve spec=3 completeness=3 quality=3 verif=3 format=3"
REASON = "The quality gap is tracked in #12 and accepted."


def reactions(effects: list[object]) -> list[str]:
    return [e.content for e in of_type(effects, React)]  # type: ignore[arg-type]


def reply(effects: list[object]) -> str:
    (posted,) = of_type(effects, PostComment)  # type: ignore[arg-type]
    return str(posted.body)


def test_score_on_v1_completes_the_first_submission(bot: Harness) -> None:
    bot.open(scores=AGORA_AUTO)
    effects = bot.say("/score spec=4 quality=3 -- good start")
    assert isinstance(effects[0], AppendEvents)
    scored, first = effects[0].events
    assert (scored.kind, scored.source, scored.scores) == (
        "review_scored",
        "reviewer",
        {"spec_adherence": 4.0, "quality": 3.0},
    )
    assert scored.feedback == "good start"
    assert scored.delivery == "comment:1001#0"
    assert (first.kind, first.source) == ("first_submission", "reviewer")
    assert first.scores == {**AGORA_AUTO, "spec_adherence": 4.0, "quality": 3.0}
    assert (first.weighted_total, first.verdict) == (3.7, "pass")
    assert reactions(effects) == ["+1"]
    assert of_type(effects, UpsertComment)
    assert not of_type(effects, PostComment)
    assert bot.job.first_sources["spec_adherence"] == "reviewer"
    assert bot.job.first_sources["completeness"] == "auto"


def test_score_after_a_new_version_is_not_a_first_submission(bot: Harness) -> None:
    bot.open()
    bot.push("c" * 40, "2" * 40)
    effects = bot.say("/score quality=4", at="2024-03-03T10:00:00Z")
    assert kinds(effects) == ["review_scored"]
    assert of_type(effects, AppendEvents)[0].events[0].version == 2


def test_partial_scores_merge_per_version(bot: Harness) -> None:
    bot.open()
    bot.say("/score spec=4")
    bot.say("/score quality=2", comment_id=1002, at="2024-03-01T13:00:00Z")
    bot.say("/score quality=3", actor="other-writer", comment_id=1003, at="2024-03-01T14:00:00Z")
    assert bot.job.reviewer_scores[1] == {"spec_adherence": 4.0, "quality": 3.0}


def test_unknown_criterion_and_out_of_range_replies_list_ids_and_range(bot: Harness) -> None:
    bot.open()
    effects = bot.say("/score speed=4")
    assert not of_type(effects, AppendEvents)
    assert reactions(effects) == []  # the reply answers it
    text = reply(effects)
    assert "> /score speed=4" in text
    assert "unknown criterion 'speed'" in text
    assert "spec_adherence" in text
    text = reply(bot.say("/score spec=9", comment_id=1002))
    assert "9 is out of range" in text
    assert "from 1 to 5" in text
    assert "ambiguous" not in reply(bot.say("/score q=9", comment_id=1003))


def test_ambiguous_prefix_is_refused(agora: Rubric) -> None:
    rubric = agora.model_copy(
        update={
            "criteria": (*agora.criteria, agora.criteria[0].model_copy(update={"id": "spec_x"}))
        }
    )
    bot = Harness(rubric)
    bot.open()
    assert "ambiguous" in reply(bot.say("/score spec=3"))


def test_the_author_cannot_score_approve_override_or_rate(bot: Harness) -> None:
    bot.open()
    effects = bot.say("/score quality=5\n/approve\n/override " + REASON, actor=AUTHOR, role="admin")
    assert not of_type(effects, AppendEvents)
    text = reply(effects)
    assert text.count("author of a pull request cannot") == 3
    assert text.startswith(f"@{AUTHOR} rubricate could not apply 3 commands")


def test_reader_is_refused_with_the_role_needed(bot: Harness) -> None:
    bot.open()
    text = reply(bot.say("/score quality=4", role="read"))
    assert "needs the write role or higher; you have read" in text


def test_approve_with_missing_criteria_lists_them(bot: Harness) -> None:
    bot.open(scores=AGORA_AUTO)
    bot.say("/score spec=4")
    effects = bot.say("/approve quality=4", comment_id=1002)
    assert not of_type(effects, AppendEvents)
    text = reply(effects)
    assert "missing: `completeness`, `verifiability`, `format_correctness`" in text
    assert "/approve completeness=N verifiability=N format_correctness=N" in text
    assert reactions(effects) == []  # the reply answers it
    assert "already fails" not in text


def test_approve_with_missing_criteria_reports_a_decided_fail_at_once(bot: Harness) -> None:
    bot.open(scores=AGORA_AUTO)
    effects = bot.say("/approve spec=4 quality=1", comment_id=1002)
    assert not of_type(effects, AppendEvents)
    text = reply(effects)
    assert "missing: `completeness`" in text
    assert "it already fails the rubric: below the bar: `quality` (1)" in text


def test_approve_passing_turns_the_gate_green(bot: Harness) -> None:
    bot.open()
    effects = bot.say(APPROVE_PASS)
    assert kinds(effects) == ["review_scored", "first_submission", "approved"]
    status = of_type(effects, SetStatus)[0]
    assert (status.state, status.sha) == ("success", "a" * 40)
    assert not of_type(effects, PostComment)
    assert of_type(effects, SetOutputs)[0].outputs["gate"] == "success"


def test_approve_failing_is_red_and_the_reply_mentions_override(bot: Harness) -> None:
    bot.open()
    effects = bot.say(APPROVE_FAIL)
    assert kinds(effects)[-1] == "approved"
    assert of_type(effects, SetStatus)[0].state == "failure"
    text = reply(effects)
    assert "`/override <reason>`" in text
    assert "below 3.5" in text
    assert reactions(effects) == []  # the reply answers it


def test_approve_fails_on_a_single_low_score(bot: Harness) -> None:
    bot.open()
    text = reply(bot.say("/approve spec=5 completeness=5 quality=5 verif=5 format=1"))
    assert "below the bar: `format_correctness` (1)" in text


def test_override_short_reason_is_refused(bot: Harness) -> None:
    bot.open()
    bot.say(APPROVE_FAIL)
    effects = bot.say("/override too short", actor=MAINTAINER, role="maintain", comment_id=1002)
    assert not of_type(effects, AppendEvents)
    assert "at least 20 are needed" in reply(effects)


def test_override_turns_the_gate_green_and_is_shown_forever(bot: Harness) -> None:
    bot.open()
    bot.say(APPROVE_FAIL)
    effects = bot.say(f"/override {REASON}", actor=MAINTAINER, role="maintain", comment_id=1002)
    (event,) = of_type(effects, AppendEvents)[0].events
    assert event.kind == "approved"
    assert event.override is not None
    assert event.override.reason == REASON
    assert event.verdict == "fail"
    assert of_type(effects, SetStatus)[0].state == "success"
    bot.push("c" * 40, "2" * 40, at="2024-03-04T10:00:00Z")
    assert of_type(bot.effects, SetStatus)[0].state == "pending"
    sticky = of_type(bot.effects, UpsertComment)[0].body
    assert "**Override** of v1" in sticky
    assert "tracked in \\#12" in sticky


def test_override_at_the_wrong_moment_is_refused(bot: Harness) -> None:
    bot.open()
    maint = {"actor": MAINTAINER, "role": "maintain"}
    assert "no approval of v1" in reply(bot.say(f"/override {REASON}", **maint))  # type: ignore[arg-type]
    bot.say(APPROVE_PASS, comment_id=1002)
    assert "already passes" in reply(bot.say(f"/override {REASON}", comment_id=1003, **maint))  # type: ignore[arg-type]
    text = reply(bot.say(f"/override {REASON}", role="write", comment_id=1004))
    assert "needs the maintain role" in text


def test_revise_records_feedback_and_withdraws_the_approval(bot: Harness) -> None:
    bot.open()
    bot.say(APPROVE_PASS)
    effects = bot.say("/revise Please add tests for\nthe empty input.", comment_id=1002)
    (event,) = of_type(effects, AppendEvents)[0].events
    assert (event.kind, event.feedback) == (
        "revision_requested",
        "Please add tests for\nthe empty input.",
    )
    assert of_type(effects, SetStatus)[0].state == "pending"


def test_rate_and_dispute_only_after_merge(bot: Harness) -> None:
    bot.open()
    text = reply(bot.say("/rate 5 great"))
    assert "`/rate` is accepted only after the pull request is merged" in text
    bot.say(APPROVE_PASS, comment_id=1002)
    bot.close(merged=True)
    effects = bot.say(
        "/rate 4 solid", comment_id=1003, at="2024-03-06T10:00:00Z", merged=True, state="closed"
    )
    (rated,) = of_type(effects, AppendEvents)[0].events
    assert (rated.kind, rated.rating, rated.feedback, rated.actor_role) == (
        "rated",
        4,
        "solid",
        "write",
    )
    assert not of_type(effects, SetStatus)
    dispute = bot.say(
        "/dispute broke prod",
        actor=MAINTAINER,
        role="maintain",
        comment_id=1004,
        at="2024-03-07T10:00:00Z",
        merged=True,
        state="closed",
    )
    assert kinds(dispute) == ["disputed"]
    text = reply(bot.say("/score quality=3", comment_id=1005, merged=True, state="closed"))
    assert "already merged" in text


def test_commands_on_a_closed_or_unknown_pr_are_refused(bot: Harness) -> None:
    assert "has not recorded a version" in reply(bot.say("/score quality=3"))
    bot.open()
    bot.close(merged=False)
    assert "is closed" in reply(bot.say("/approve", comment_id=1002, state="closed"))


def test_rubric_and_help_replies(bot: Harness) -> None:
    text = reply(bot.say("/rubric\n/rubricate help", actor="passer-by", role="none"))
    assert "agora-v3" in text
    assert "spec_adherence" in text
    for usage in (
        "/score ID=N",
        "/approve",
        "/revise",
        "/override",
        "/rate 1-5",
        "/dispute",
        "/rubric",
    ):
        assert usage in text
    assert "maintain" in text
    assert reactions(bot.effects) == []  # the reply answers it


def test_unknown_command_gets_a_reply(bot: Harness) -> None:
    text = reply(bot.say("/scroe quality=3"))
    assert "unknown command `/scroe`" in text
    assert "score" in text


def test_several_commands_apply_in_order(bot: Harness) -> None:
    bot.open()
    effects = bot.say(
        "/score spec=4 completeness=4 quality=4\nthen\n/approve verif=4 format=5\n/dance"
    )
    assert kinds(effects) == [
        "review_scored",
        "first_submission",
        "review_scored",
        "first_submission",
        "approved",
    ]
    deliveries = [e.delivery for e in of_type(effects, AppendEvents)[0].events]
    assert deliveries == ["comment:1001#0"] * 2 + ["comment:1001#1"] * 3
    assert reactions(effects) == []  # the reply answers it
    assert "/dance" in reply(effects)
    assert bot.job.approval is not None
    assert bot.job.approval.verdict == "pass"


def test_the_same_comment_twice_adds_nothing_and_rebuilds_views(bot: Harness) -> None:
    bot.open()
    bot.say(APPROVE_PASS)
    before = list(bot.ledger)
    effects = bot.say(APPROVE_PASS)
    assert bot.ledger == before
    assert not of_type(effects, AppendEvents)
    assert not of_type(effects, PostComment)
    assert of_type(effects, UpsertComment)
    assert of_type(effects, SetStatus)
    assert reactions(effects) == ["+1"]


def test_comment_without_commands_only_logs(bot: Harness) -> None:
    payload = comment_payload("Thanks, looks good!", actor=WRITER, comment_id=1001)
    assert isinstance(parse_event("issue_comment", payload), Ignored)
    event = CommentEvent(1001, "Thanks, looks good!", WRITER, NOW, 7, AUTHOR, REPO)
    effects = bot.run(event, role="write")
    assert [type(e).__name__ for e in effects] == ["Log"]


def test_review_commands_use_review_deliveries(bot: Harness) -> None:
    bot.open()
    bot.push("c" * 40, "2" * 40)
    review = parse_event("pull_request_review", load_fixture("pull_request_review.submitted.json"))
    effects = bot.run(review, role="write")  # type: ignore[arg-type]
    assert [e.delivery for e in of_type(effects, AppendEvents)[0].events] == ["review:2002#0"] * 2
    assert {(e.target, e.comment_id) for e in of_type(effects, React)} == {("review", 2002)}


def test_user_text_is_escaped_in_the_sticky_comment(bot: Harness) -> None:
    bot.open()
    bot.say("/revise <img src=x onerror=alert(1)> @everyone **bold** [x](javascript:1)")
    body = of_type(bot.effects, UpsertComment)[0].body
    assert "<img" not in body
    assert "&lt;img" in body
    assert "@everyone" not in body
    assert "**bold**" not in body
    assert "](javascript" not in body


def test_reply_quotes_are_escaped(bot: Harness) -> None:
    text = reply(bot.say("/nope <b>x</b> @team"))
    assert "<b>" not in text
    assert "@team" not in text


def test_writer_actor_role_is_recorded(bot: Harness) -> None:
    bot.open()
    bot.say("/score quality=4", actor=WRITER, role="write")
    assert bot.ledger[-1].actor_role == "write"
    assert bot.ledger[-1].actor == WRITER


def test_scores_of_criteria_dropped_from_the_rubric_are_ignored(agora: Rubric) -> None:
    bot = Harness(agora)
    bot.open()
    bot.say("/score quality=4 spec=4")
    bot.rubric = agora.model_copy(
        update={"criteria": tuple(c for c in agora.criteria if c.id != "quality")}
    )
    effects = bot.say("/approve completeness=4 verif=4 format=4", comment_id=1002)
    approved = of_type(effects, AppendEvents)[0].events[-1]
    assert approved.kind == "approved"
    assert approved.scores is not None
    assert "quality" not in approved.scores


def test_ten_huge_unknown_commands_get_one_reply_under_the_limit(bot: Harness) -> None:
    bot.open()
    body = "\n".join(f"/{chr(97 + i)}{'x' * 6_400}" for i in range(10))
    text = reply(bot.say(body))
    assert len(text) <= 60_000
    assert text.count("unknown command") == 10


def test_a_comment_answered_without_events_is_marked_and_then_skipped(bot: Harness) -> None:
    bot.open()
    first = bot.say("/rubric\n/override short", comment_id=50)
    assert first[-2] == MarkAnswered("comment:50")
    assert of_type(first, PostComment)
    job = replace(bot.job, answered=frozenset({"comment:50"}))
    event = parse_event("issue_comment", comment_payload("/rubric", comment_id=50))
    assert isinstance(event, CommentEvent)
    rerun = handle(event, None, job, HandlerContext(REPO, bot.config, bot.rubric, NOW))
    assert not of_type(rerun, PostComment)
    assert not of_type(rerun, React)
    assert not of_type(rerun, MarkAnswered)


def test_a_comment_with_events_is_not_marked_answered(bot: Harness) -> None:
    bot.open()
    effects = bot.say("/score quality=4\n/rubric", comment_id=51)
    assert kinds(effects) == ["review_scored", "first_submission"]
    assert not of_type(effects, MarkAnswered)
