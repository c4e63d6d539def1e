"""auto_score: checks mapped onto rubric criteria and scales, graders applied, verdicts."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rubricate.cli.rubric_cmd import resolve_rubric
from rubricate.config import Config
from rubricate.evidence.autoscore import auto_score
from rubricate.evidence.results import CheckResult, Finding, to_scale
from rubricate.evidence.snapshot import FileChange, Snapshot
from rubricate.rubric.model import Criterion, PassRule, Rubric, Scale

from .gitrepo import config_of, snapshot_of

POINTS = Scale(min=1, max=5)
CHECKLIST = Scale(min=0, max=1, kind="checklist")
OPEN = Scale(min=0, max=100, open=True, kind="open")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.0, 1),
        (0.12, 1),
        (0.125, 2),
        (0.374, 2),
        (0.375, 3),
        (0.5, 3),
        (0.625, 4),
        (0.874, 4),
        (0.875, 5),
        (1.0, 5),
    ],
)
def test_points_table(value: float, expected: int) -> None:
    assert to_scale(POINTS, value) == expected


def test_defects_never_earn_the_top_and_checklists_need_point_seven() -> None:
    assert to_scale(POINTS, 1.0, defects=True) == 4
    assert to_scale(POINTS, 0.2, defects=True) == 2
    assert to_scale(CHECKLIST, 0.7) is True
    assert to_scale(CHECKLIST, 0.6999) is False
    assert to_scale(CHECKLIST, 0.9, errors=True) is False
    assert to_scale(OPEN, 0.5) == 50.0
    assert to_scale(OPEN, 1.0, defects=True) == 90.0
    assert to_scale(Scale(min=0, max=10, kind="analytic"), 0.84) == 8


@given(st.floats(0, 1), st.floats(0, 1), st.booleans())
def test_mapping_is_monotonic_and_in_range(a: float, b: float, defects: bool) -> None:
    low, high = sorted((a, b))
    for scale in (POINTS, OPEN, Scale(min=0, max=10, kind="analytic")):
        mapped_low = to_scale(scale, low, defects=defects)
        mapped_high = to_scale(scale, high, defects=defects)
        assert scale.min <= mapped_low <= mapped_high <= scale.max


def _agora() -> Rubric:
    return resolve_rubric("agora-v3")


def test_agora_scores_from_a_real_change(tmp_path: Path) -> None:
    config = config_of('deliverables:\n  - {glob: "out/*.json", schema: {type: object}}\n')
    head = {
        "src/app.py": "def run() -> int:\n    return 1\n",
        "tests/test_app.py": "def test_run():\n    assert True\n",
        "out/r.json": "{}\n",
    }
    snap = snapshot_of(
        tmp_path, {"README.md": "x\n"}, head, config=config, spec="- [ ] Add `src/app.py`\n"
    )
    report = auto_score(snap, _agora(), config)
    scores = {c.id: (c.score, c.source) for c in report.criteria}
    assert scores == {
        "spec_adherence": (5.0, "auto"),
        "completeness": (5.0, "auto"),
        "verifiability": (5.0, "auto"),
        "format_correctness": (5.0, "auto"),
    }
    assert report.not_scored == ("quality",)
    assert report.result.verdict == "incomplete"
    assert report.result.missing == ("quality",)
    assert all(c.evidence for c in report.criteria)
    assert [c.id for c in report.checks] == [
        "inputs",
        "format",
        "verifiability",
        "completeness",
        "spec_adherence",
    ]
    assert report.notes[0].startswith("quality: no automatic score")
    assert (report.base, report.head) == (snap.base_sha, snap.head_sha)


def _snapshot(*changes: FileChange) -> Snapshot:
    return Snapshot(
        base_sha="b" * 40,
        head_sha="h" * 40,
        changes=changes,
        head_paths=frozenset(c.path for c in changes),
    )


def test_rubric_without_those_ids_gets_nothing() -> None:
    rubric = Rubric(
        id="r",
        version="1",
        dialect="agentv-assertions",
        scale=CHECKLIST,
        pass_rule=PassRule(min_total=0.8),
        criteria=(Criterion(id="explains-partition", outcome="Explains the partition step"),),
    )
    report = auto_score(
        _snapshot(FileChange("a.py", "added", content=b"x = 1\n")), rubric, Config()
    )
    assert report.criteria == ()
    assert report.not_scored == ("explains-partition",)
    assert report.result.verdict == "incomplete"


def test_checklist_rubric_gets_booleans() -> None:
    rubric = Rubric(
        id="r",
        version="1",
        dialect="agentv-assertions",
        scale=CHECKLIST,
        pass_rule=PassRule(min_total=0.8),
        criteria=(Criterion(id="completeness", outcome="Nothing is left unfinished"),),
    )
    change = FileChange("a.py", "added", patch="@@ -0,0 +1 @@\n+x = 1\n", content=b"x = 1\n")
    report = auto_score(_snapshot(change), rubric, Config())
    assert [(c.id, c.score) for c in report.criteria] == [("completeness", True)]
    assert report.result.verdict == "pass"


def _grader(criterion: str, value: float | None, status: str = "pass") -> CheckResult:
    return CheckResult(f"grader:{criterion}-{value}", status, (), criterion, None, ("ran",), value)  # type: ignore[arg-type]


def test_graders_replace_heuristics_and_combine_by_their_lowest_value() -> None:
    change = FileChange("a.py", "added", patch="@@ -0,0 +1 @@\n+x = 1\n", content=b"x = 1\n")
    graders = [
        _grader("qual", 1.0),
        _grader("quality", 0.5),
        _grader("verif", None, "skip"),
        _grader("nope", 1.0),
    ]
    report = auto_score(_snapshot(change), _agora(), Config(), grader_results=graders)
    scores = {c.id: c.score for c in report.criteria}
    assert scores["quality"] == 3.0
    assert "verifiability" in scores
    assert scores["verifiability"] == 3.0  # the heuristic's note (no test change) holds at 3
    unknown = next(c for c in report.checks if c.id == "grader:nope-1.0")
    assert unknown.criterion is None
    assert unknown.findings[-1].message.startswith("scores no criterion: unknown criterion 'nope'")


def test_grader_failure_is_never_a_pass() -> None:
    finding = Finding("grader:t", "timed out after 1s", severity="error")
    crashed = CheckResult("grader:t", "error", (finding,), "verifiability", None, (), 0.0)
    report = auto_score(
        _snapshot(FileChange("a.py", "added", content=b"x\n")),
        _agora(),
        Config(),
        grader_results=[crashed],
    )
    assert {c.id: c.score for c in report.criteria}["verifiability"] == 1.0
    assert report.result.verdict != "pass"
