"""The graders hand-off in the pure core: the run payload, the artifact reader, the handler."""

from __future__ import annotations

import contextlib
import json
import warnings
import zipfile
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rubricate.bot.effects import (
    Annotate,
    AppendEvents,
    Effect,
    SetCheckRun,
    SetStatus,
    UpsertComment,
)
from rubricate.bot.events import GradersEvent, GradersRun, Ignored
from rubricate.bot.payload import PayloadError, parse_event, parse_graders_run
from rubricate.config import Config, GraderCommand
from rubricate.errors import HandoffRefused
from rubricate.evidence.graders_handoff import Handoff, HandoffLimits, read_handoff
from rubricate.evidence.results import CheckResult, Finding
from rubricate.evidence.results import report_json as real_report_json
from rubricate.ledger.trust import natural_key
from rubricate.rubric.model import Rubric

from .conftest import AGORA_AUTO, REPO, Harness, make_report, of_type
from .handoff_files import (
    HEAD,
    RUN_ID,
    artifact_zip,
    grader_check,
    pull_json,
    report_json,
    workflow_run_payload,
)

GRADERS = (
    GraderCommand(id="tests", run="pytest -q", criterion="quality"),
    GraderCommand(id="lint", run="ruff check .", criterion="verif"),
)
FINDING = {"path": "src/app.py", "line": 3, "message": "slow <b>@alice</b>", "severity": "warning"}
KEYS = st.sampled_from(["id", "status", "value", "findings", "message", "path", "line"])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS | st.text(max_size=5), inner),
    max_leaves=25,
)
CHECKS = st.lists(
    st.fixed_dictionaries(
        {
            "id": st.sampled_from(["grader:tests", "grader:x", "format", "grader:../x"]),
            "status": st.sampled_from(["pass", "fail", "skip", "error", "nope"]),
        },
        optional={"value": JSON, "findings": st.lists(st.dictionaries(KEYS, JSON) | JSON)},
    ),
    max_size=6,
)


def run_of(**extra: Any) -> GradersRun:
    run = parse_graders_run(workflow_run_payload(**extra))
    assert isinstance(run, GradersRun)
    return run


def handoff(*checks: dict[str, Any]) -> Handoff:
    return read_handoff(artifact_zip(pull_json(), report_json(checks)))


def graders_event(found: Handoff, run_id: int = RUN_ID) -> GradersEvent:
    run = run_of(run_id=run_id)
    return GradersEvent(run, found.pr, "b" * 40, "main", found.checks, found.dropped)


def deliver(bot: Harness, event: GradersEvent) -> list[Effect]:
    """Run the handler on a verified graders event, as the shell does."""
    return bot.run(event)  # type: ignore[arg-type]


@pytest.fixture
def graded(agora: Rubric) -> Harness:
    bot = Harness(agora, config=Config(graders=GRADERS))
    bot.open(scores=AGORA_AUTO)
    return bot


# -- the workflow_run payload ----------------------------------------------------------


def test_a_completed_pull_request_run_is_a_graders_run() -> None:
    run = parse_event("workflow_run", workflow_run_payload(conclusion="failure"))
    assert isinstance(run, GradersRun)
    assert (run.run_id, run.head_sha, run.repo, run.conclusion) == (
        RUN_ID,
        HEAD,
        REPO,
        "failure",
    )
    assert (run.actor, run.pull_numbers, run.head_repo) == ("alice", (), "alice/widgets")


@pytest.mark.parametrize(
    ("extra", "reason"),
    [
        ({"action": "requested"}, "only completed runs"),
        ({"event": "push"}, "graders hand off pull_request runs"),
        ({"event": "pull_request_target"}, "graders hand off pull_request runs"),
    ],
)
def test_other_runs_are_ignored(extra: dict[str, Any], reason: str) -> None:
    ignored = parse_event("workflow_run", workflow_run_payload(**extra))
    assert isinstance(ignored, Ignored)
    assert reason in ignored.reason


def test_a_run_without_a_commit_sha_is_a_payload_error() -> None:
    with pytest.raises(PayloadError, match="head_sha"):
        parse_graders_run(workflow_run_payload(head_sha="main"))


@pytest.mark.parametrize("run_id", [0, -1, True, "7"])
def test_a_run_without_a_positive_id_is_a_payload_error(run_id: Any) -> None:
    with pytest.raises(PayloadError, match=r"`workflow_run\.id` is missing or not an integer"):
        parse_graders_run(workflow_run_payload(run_id=run_id))


def test_a_run_without_times_is_a_payload_error() -> None:
    payload = workflow_run_payload()
    del payload["workflow_run"]["updated_at"], payload["workflow_run"]["created_at"]
    with pytest.raises(PayloadError, match="created_at"):
        parse_graders_run(payload)


# -- the artifact ----------------------------------------------------------------------


def test_only_grader_checks_are_read_and_their_texts_are_cleaned() -> None:
    long = "x" * 1000
    findings = [
        {**FINDING, "message": "line one\nline two\u202e\x1b[31m"},
        {"path": "../etc/passwd", "line": True, "message": long},
        {"path": "/abs", "line": 0, "message": "absolute"},
        "not an object",
    ]
    found = handoff(
        grader_check("tests", 0.9, findings=findings),
        grader_check("lint", 1.5),
        grader_check("bad", 0.5, status="great"),
        grader_check("tests", 0.1),
    )
    assert (found.pr, found.head_sha) == (7, HEAD)
    [check] = found.checks
    assert (check.id, check.status, check.value, check.criterion) == (
        "grader:tests",
        "pass",
        0.9,
        None,
    )
    assert check.evidence == ()
    first, second, third = check.findings
    assert first.message == "line one line two [31m"
    assert (first.path, first.line, first.severity) == ("src/app.py", 3, "warning")
    assert (second.path, second.line, len(second.message)) == (None, None, 300)
    assert (third.path, third.line) == (None, None)
    assert any("grader:lint" in d and "[0, 1]" in d for d in found.dropped)
    assert any("grader:bad" in d and "status" in d for d in found.dropped)


def test_what_rubricate_score_writes_is_what_the_reader_reads(agora: Rubric) -> None:
    finding = Finding("grader:tests", "one test is slow", "tests/t.py", 4, "warning")
    report = make_report(agora, AGORA_AUTO)
    grader = CheckResult("grader:tests", "pass", (finding,), "quality", 4.0, ("ran",), 0.8)
    report = type(report)(**{**report.__dict__, "checks": (*report.checks, grader)})
    found = read_handoff(artifact_zip(pull_json(), real_report_json(report)))
    [check] = found.checks
    assert (check.id, check.value, check.findings) == ("grader:tests", 0.8, (finding,))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"not a zip", "not a readable zip"),
        (artifact_zip(pull_json()), "no report.json"),
        (artifact_zip(None, report_json([])), "no pull.json"),
        (artifact_zip({"pr": True, "head_sha": HEAD}, report_json([])), "not a PR number"),
        (artifact_zip(pull_json(head_sha="HEAD"), report_json([])), "not a commit SHA"),
        (artifact_zip(pull_json(), b'{"checks": [NaN]}'), "not JSON"),
        (artifact_zip(pull_json(), b"[" * 100_000), "not JSON"),
        (artifact_zip(pull_json(), {"checks": "all good"}), "no list of checks"),
    ],
)
def test_an_unfit_artifact_is_refused(data: bytes, message: str) -> None:
    with pytest.raises(HandoffRefused, match=message):
        read_handoff(data)


def test_duplicate_entries_are_refused() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        data = artifact_zip(pull_json(), report_json([]), extra={"pull.json": b"{}"})
    with pytest.raises(HandoffRefused, match="duplicate"):
        read_handoff(data)


def test_a_zip_bomb_is_refused_before_it_is_unpacked() -> None:
    bomb = artifact_zip(pull_json(), report_json([]), extra={"padding": b"\0" * (6 * 2**20)})
    assert len(bomb) < 64 * 1024
    with pytest.raises(HandoffRefused, match="unpacks to 6"):
        read_handoff(bomb)
    many = {f"f{i}": b"" for i in range(20)}
    with pytest.raises(HandoffRefused, match="22 entries, over 16"):
        read_handoff(artifact_zip(pull_json(), report_json([]), extra=many))
    with pytest.raises(HandoffRefused, match="over 100"):
        read_handoff(bomb, HandoffLimits(max_zip_bytes=100))


def test_a_member_that_unpacks_past_its_declared_size_is_refused() -> None:
    honest = artifact_zip(pull_json(), report_json([]), compression=zipfile.ZIP_STORED)
    size = len(json.dumps(report_json([])).encode())
    declared = size.to_bytes(4, "little")
    lied = (size - 10).to_bytes(4, "little")
    forged = honest.replace(declared + declared, lied + lied)
    assert forged != honest
    with pytest.raises(HandoffRefused):
        read_handoff(forged)


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=2048))
def test_any_bytes_are_read_or_refused(data: bytes) -> None:
    with contextlib.suppress(HandoffRefused):
        read_handoff(data)


@settings(max_examples=100, deadline=None)
@given(st.fixed_dictionaries({"checks": CHECKS}) | JSON)
def test_any_json_report_is_read_or_refused(report: Any) -> None:
    try:
        found = read_handoff(artifact_zip(pull_json(), json.dumps(report).encode()))
    except HandoffRefused:
        return
    assert all(c.id.startswith("grader:") for c in found.checks)


# -- the handler -----------------------------------------------------------------------


def test_a_graders_run_records_untrusted_auto_scores(graded: Harness) -> None:
    graded.say("/score verif=2")
    first = dict(graded.job.first_submission)
    found = handoff(
        grader_check("tests", 0.9, findings=[FINDING]),
        grader_check("lint", 1.0),
        grader_check("unknown", 0.0),
    )
    effects = deliver(graded, graders_event(found))
    [append] = of_type(effects, AppendEvents)
    [event] = append.events
    assert (event.kind, event.source, event.version) == ("review_scored", "auto", 1)
    assert event.delivery == f"graders:{RUN_ID}"
    assert event.id == natural_key("review_scored", REPO, 7, 1, f"graders:{RUN_ID}")
    assert event.head_sha == HEAD
    assert event.scores == {**AGORA_AUTO, "quality": 4.0}, "the forged criterion is ignored"
    evidence = event.evidence or []
    graders_entries = [e for e in evidence if e.get("untrusted")]
    assert {e["type"] for e in graders_entries} == {"note", "criterion", "check", "finding"}
    assert all(e["run_id"] == RUN_ID for e in graders_entries)
    assert any("reviewer's score is kept" in str(e.get("text")) for e in graders_entries)
    assert any("grader:unknown is not a grader" in str(e.get("text")) for e in graders_entries)
    job = graded.job
    assert job.first_submission == first, "FIRST_SUBMISSION is never rewritten by graders"
    assert job.reviewer_scores[1] == {"verifiability": 2}
    assert not of_type(effects, SetStatus), "graders never touch the gate"
    [sticky] = of_type(effects, UpsertComment)
    assert "unprivileged graders run" in sticky.body
    assert "slow &lt;b&gt;@\u200balice&lt;/b&gt;" in sticky.body.replace("\\", "")
    [check] = of_type(effects, SetCheckRun)
    assert check.conclusion == "neutral"
    [note] = check.annotations
    assert (note.path, note.line, note.title) == (
        "src/app.py",
        3,
        "grader:tests (untrusted graders run)",
    )


def test_a_replayed_run_records_nothing_new(graded: Harness) -> None:
    event = graders_event(handoff(grader_check("tests", 0.5)))
    deliver(graded, event)
    ledger = list(graded.ledger)
    effects = deliver(graded, event)
    assert graded.ledger == ledger
    assert not of_type(effects, AppendEvents)
    assert of_type(effects, UpsertComment)
    assert "already recorded" in effects[-1].message  # type: ignore[union-attr]


def test_a_second_run_replaces_the_first_runs_entries(graded: Harness) -> None:
    deliver(graded, graders_event(handoff(grader_check("tests", 0.0)), run_id=1))
    deliver(graded, graders_event(handoff(grader_check("tests", 1.0)), run_id=2))
    auto = graded.job.auto[1]
    assert auto.scores["quality"] == 5.0
    notes = [e for e in auto.evidence if e.get("type") == "note" and e.get("untrusted")]
    assert [e["run_id"] for e in notes] == [2]
    criteria = [e["id"] for e in auto.evidence if e.get("type") == "criterion"]
    assert sorted(criteria) == sorted(set(criteria)), "one entry per criterion"


def test_a_head_without_a_version_records_nothing(agora: Rubric) -> None:
    bot = Harness(agora, config=Config(graders=GRADERS))
    effects = deliver(bot, graders_event(handoff(grader_check("tests", 1.0))))
    assert not bot.ledger
    [warning] = of_type(effects, Annotate)
    assert "re-run this job" in warning.message


def test_a_closed_pr_records_nothing(graded: Harness) -> None:
    graded.close(merged=False)
    before = list(graded.ledger)
    effects = deliver(graded, graders_event(handoff(grader_check("tests", 1.0))))
    assert graded.ledger == before
    assert not graded.job.auto[1].scores.get("quality")
    assert "closed" in effects[-1].message  # type: ignore[union-attr]


def test_checks_of_unconfigured_graders_record_nothing(agora: Rubric) -> None:
    bot = Harness(agora)
    bot.open(scores=AGORA_AUTO)
    before = list(bot.ledger)
    deliver(bot, graders_event(handoff(grader_check("tests", 1.0))))
    assert bot.ledger == before


def test_graders_do_not_change_the_gate_or_the_final_scores(graded: Harness) -> None:
    approve = "/approve spec=4 completeness=4 quality=4 verif=4 format=5"
    graded.say(approve)
    gate = graded.job.approval
    deliver(graded, graders_event(handoff(grader_check("tests", 0.0, status="fail"))))
    assert graded.job.approval == gate
    effects = graded.close(merged=True)
    [final] = [e for a in of_type(effects, AppendEvents) for e in a.events]
    assert (final.gate, final.scores["quality"]) == ("passed", 4)
