"""Pull-request events: FIRST_SUBMISSION, versions, rebases, merge, abandonment, reverts."""

from __future__ import annotations

from datetime import datetime, timezone

from rubricate.bot.effects import (
    AppendEvents,
    Log,
    SetCheckRun,
    SetOutputs,
    SetStatus,
    UpsertComment,
)
from rubricate.bot.events import Ignored
from rubricate.bot.payload import parse_event
from rubricate.evidence.results import Finding
from rubricate.ledger.fold import fold_job
from rubricate.ledger.trust import natural_key

from .conftest import (
    AGORA_AUTO,
    AGORA_PASS,
    MAINTAINER,
    REPO,
    WRITER,
    Harness,
    kinds,
    make_report,
    of_type,
    pr_payload,
)

A, C, D = "a" * 40, "c" * 40, "d" * 40
TREE1, TREE2 = "1" * 40, "2" * 40
OVERRIDE = "/override The quality gap is tracked in #12 and accepted."
REVERT_TITLE = 'Revert "Add widget report"'


def test_opened_records_first_submission_and_views(bot: Harness) -> None:
    effects = bot.open(scores=AGORA_AUTO)
    assert isinstance(effects[0], AppendEvents)
    (event,) = effects[0].events
    assert (event.kind, event.version, event.source) == ("first_submission", 1, "auto")
    assert event.delivery == f"pr:opened:{A}"
    assert event.id == natural_key("first_submission", REPO, 7, 1, f"pr:opened:{A}")
    assert event.at == datetime(2024, 3, 1, 10, tzinfo=timezone.utc)
    assert (event.head_sha, event.tree_sha) == (A, TREE1)
    assert event.scores == AGORA_AUTO
    assert event.verdict == "incomplete"
    assert event.rubric is not None
    assert event.rubric.id == "agora-v3"
    sticky = of_type(effects, UpsertComment)[0]
    assert sticky.body.startswith("<!-- rubricate:sticky -->")
    check = of_type(effects, SetCheckRun)[0]
    assert (check.conclusion, check.head_sha, check.name) == ("neutral", A, "rubricate")
    assert check.title.startswith("FIRST_SUBMISSION v1")
    status = of_type(effects, SetStatus)[0]
    assert (status.state, status.sha, status.context) == ("pending", A, "rubricate/approval")
    outputs = of_type(effects, SetOutputs)[0].outputs
    assert outputs["verdict"] == "incomplete"
    assert outputs["gate"] == "pending"


def test_judge_scores_are_recorded_with_source_judge(bot: Harness) -> None:
    report = make_report(bot.rubric, AGORA_PASS, judge=("quality",))
    event = parse_event("pull_request", pr_payload("opened", A))
    assert not isinstance(event, Ignored)
    from .conftest import snapshot

    effects = bot.run(event, snap=snapshot(A, TREE1), report=report)
    first = of_type(effects, AppendEvents)[0].events[0]
    assert first.source == "judge"
    assert bot.job.first_sources["quality"] == "judge"
    assert bot.job.first_sources["completeness"] == "auto"


def test_ready_for_review_records_v1_when_opened_as_draft(bot: Harness) -> None:
    draft = parse_event("pull_request", pr_payload("opened", A, draft=True))
    assert isinstance(draft, Ignored)
    effects = bot.open(action="ready_for_review", at="2024-03-01T11:00:00Z")
    assert kinds(effects) == ["first_submission"]


def test_rebase_with_the_same_tree_keeps_version_scores_and_status(bot: Harness) -> None:
    bot.open(scores=AGORA_AUTO)
    bot.say("/approve " + " ".join(f"{k}={v}" for k, v in AGORA_PASS.items()))
    assert bot.job.approval is not None
    effects = bot.push(C, TREE1)
    assert kinds(effects) == ["review_scored"]
    assert bot.job.current_version == 1
    assert bot.job.current is not None
    assert bot.job.current.heads == (A, C)
    status = of_type(effects, SetStatus)[0]
    assert (status.sha, status.state) == (C, "success")


def test_push_changing_the_tree_is_a_new_version_and_resets_the_gate(bot: Harness) -> None:
    bot.open(scores=AGORA_AUTO)
    bot.say("/approve " + " ".join(f"{k}={v}" for k, v in AGORA_PASS.items()))
    effects = bot.push(C, TREE2, scores=AGORA_PASS)
    (event,) = of_type(effects, AppendEvents)[0].events
    assert (event.kind, event.version, event.source, event.verdict) == (
        "review_scored",
        2,
        "auto",
        "pass",
    )
    status = of_type(effects, SetStatus)[0]
    assert (status.sha, status.state) == (C, "pending")
    assert "v2" in status.description
    assert of_type(effects, SetCheckRun)[0].title.startswith("v2 automatic score")


def test_same_push_delivered_twice_adds_nothing(bot: Harness) -> None:
    bot.open()
    bot.push(C, TREE2)
    before = list(bot.ledger)
    effects = bot.push(C, TREE2)
    assert bot.ledger == before
    assert not of_type(effects, AppendEvents)
    assert of_type(effects, UpsertComment)
    assert of_type(effects, SetStatus)


def test_push_without_a_snapshot_is_a_new_version_when_the_head_is_new(bot: Harness) -> None:
    bot.open()
    event = parse_event("pull_request", pr_payload("synchronize", C, at="2024-03-02T10:00:00Z"))
    assert not isinstance(event, Ignored)
    effects = bot.run(event)
    (recorded,) = of_type(effects, AppendEvents)[0].events
    assert recorded.version == 2
    assert recorded.tree_sha is None
    assert recorded.evidence == [
        {"type": "note", "text": "no automatic report was produced for this version"}
    ]


def test_closed_without_merge_is_abandoned_and_reopen_clears_it(bot: Harness) -> None:
    bot.open()
    effects = bot.close(merged=False)
    assert kinds(effects) == ["abandoned"]
    assert bot.job.abandoned
    assert of_type(effects, SetOutputs)[0].outputs["gate"] == "abandoned"
    assert not of_type(effects, SetStatus)
    reopened = bot.open(action="reopened", at="2024-03-06T10:00:00Z")
    assert kinds(reopened) == ["review_scored"]
    assert not bot.job.abandoned
    assert bot.job.current_version == 1


def test_a_reopen_whose_run_comes_before_the_closes_still_reopens(bot: Harness) -> None:
    """The close's run is late (queued, or failed and re-run) and the reopen's run comes first:
    the reopen records its event all the same, so the job is open, as the PR is, and the
    author's reputation does not count it abandoned."""
    bot.open()
    bot.open(action="reopened", at="2024-03-06T10:00:00Z")
    bot.close(merged=False, at="2024-03-05T12:00:00Z")
    assert not bot.job.abandoned
    assert fold_job(bot.ledger).facts.state == "open"


def test_closing_a_pr_never_recorded_only_logs(bot: Harness) -> None:
    effects = bot.close(merged=False)
    assert [type(e) for e in effects] == [Log]


def test_merge_after_a_passing_approval(bot: Harness) -> None:
    bot.open(scores=AGORA_AUTO)
    bot.say("/score quality=4")
    bot.say(
        "/approve spec=4 completeness=4 verif=4 format=5",
        comment_id=1002,
        at="2024-03-02T12:00:00Z",
    )
    deadline = datetime(2024, 3, 10, tzinfo=timezone.utc)
    effects = bot.close(merged=True, deadline=deadline)
    (final,) = of_type(effects, AppendEvents)[0].events
    assert (final.kind, final.gate, final.verdict, final.source) == (
        "final_approval",
        "passed",
        "pass",
        "reviewer",
    )
    assert final.scores == {**AGORA_PASS}
    assert final.deadline == deadline
    assert final.actor == MAINTAINER
    assert final.at == datetime(2024, 3, 5, 12, tzinfo=timezone.utc)
    outputs = of_type(effects, SetOutputs)[0].outputs
    assert outputs == {
        "verdict": "pass",
        "weighted-total": "4.1",
        "normalized": "0.775",
        "gate": "passed",
        "version": "1",
    }
    assert "**Merged**" in of_type(effects, UpsertComment)[0].body


def test_merge_after_an_override_records_the_reason(bot: Harness) -> None:
    bot.open()
    bot.say("/approve spec=3 completeness=3 quality=3 verif=3 format=3")
    bot.say(OVERRIDE, actor=MAINTAINER, role="maintain", comment_id=1002, at="2024-03-01T13:00:00Z")
    final = of_type(bot.close(merged=True), AppendEvents)[0].events[0]
    assert (final.gate, final.verdict) == ("overridden", "fail")
    assert final.override is not None
    assert final.override.reason.startswith("The quality gap")


def test_merge_over_a_red_gate_is_bypassed(bot: Harness) -> None:
    bot.open()
    bot.say("/approve spec=3 completeness=3 quality=3 verif=3 format=3")
    final = of_type(bot.close(merged=True), AppendEvents)[0].events[0]
    assert (final.gate, final.verdict) == ("bypassed", "fail")


def test_merge_without_approval_uses_reviewer_then_automatic_scores(agora: object) -> None:
    reviewed = Harness(agora)  # type: ignore[arg-type]
    reviewed.open(scores=AGORA_AUTO)
    reviewed.say("/score quality=2")
    final = of_type(reviewed.close(merged=True), AppendEvents)[0].events[0]
    assert (final.gate, final.source, final.scores) == ("bypassed", "reviewer", {"quality": 2.0})
    automatic = Harness(agora)  # type: ignore[arg-type]
    automatic.open(scores=AGORA_AUTO)
    final = of_type(automatic.close(merged=True), AppendEvents)[0].events[0]
    assert (final.gate, final.source, final.scores) == ("bypassed", "auto", AGORA_AUTO)


def test_merge_of_a_later_version_uses_that_versions_scores(bot: Harness) -> None:
    bot.open(scores=AGORA_AUTO)
    bot.say("/approve " + " ".join(f"{k}={v}" for k, v in AGORA_PASS.items()))
    bot.push(C, TREE2, scores={"spec_adherence": 2})
    final = of_type(bot.close(merged=True, head=C), AppendEvents)[0].events[0]
    assert (final.version, final.gate, final.scores) == (2, "bypassed", {"spec_adherence": 2})


def test_merged_revert_disputes_the_reverted_job(agora: object) -> None:
    earlier = Harness(agora)  # type: ignore[arg-type]
    earlier.open()
    earlier.close(merged=True)
    revert = Harness(agora, pr=8)  # type: ignore[arg-type]
    effects = revert.close(
        merged=True,
        title=REVERT_TITLE,
        body="Reverts acme/widgets#7",
        head=D,
        reverted_job=earlier.job,
    )
    events = of_type(effects, AppendEvents)[0].events
    assert [(e.kind, e.pr) for e in events] == [("final_approval", 8), ("disputed", 7)]
    dispute = events[1]
    assert dispute.author == "agent-smith"
    assert dispute.delivery == "revert:8"
    assert dispute.version == 1


def test_revert_of_an_unknown_job_is_logged_not_recorded(bot: Harness) -> None:
    bot.open()
    effects = bot.close(merged=True, title=REVERT_TITLE, body="Reverts #3")
    assert kinds(effects) == ["final_approval"]
    assert any("reverts #3" in e.message for e in of_type(effects, Log))


def test_findings_become_annotations_and_folded_details(bot: Harness) -> None:
    findings = [
        Finding("format", "missing property 'id'", "out/a.json", 3, "error"),
        Finding("format", "not located", None, None, "warning"),
    ]
    report = make_report(bot.rubric, AGORA_AUTO, findings=findings)
    event = parse_event("pull_request", pr_payload("opened", A))
    assert not isinstance(event, Ignored)
    from .conftest import snapshot

    effects = bot.run(event, snap=snapshot(A, TREE1), report=report)
    check = of_type(effects, SetCheckRun)[0]
    assert [(a.path, a.line, a.level) for a in check.annotations] == [("out/a.json", 3, "failure")]
    sticky = of_type(effects, UpsertComment)[0].body
    assert "<details><summary>Findings (2)</summary>" in sticky
    assert "missing property 'id'" in sticky.replace("\\", "")


def test_event_author_stays_the_pr_author(bot: Harness) -> None:
    bot.open()
    bot.say("/score quality=3", actor=WRITER)
    assert {e.author for e in bot.ledger} == {"agent-smith"}
