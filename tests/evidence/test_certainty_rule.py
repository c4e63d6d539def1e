"""The certainty rule: heuristics score below the middle only on certain evidence (DESIGN.md §1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubricate.cli.rubric_cmd import resolve_rubric
from rubricate.config import Config
from rubricate.evidence.autoscore import auto_score
from rubricate.evidence.render import render_markdown, render_table
from rubricate.evidence.results import (
    NOTE_FLOOR,
    Finding,
    check_result,
    report_json,
)
from rubricate.rubric.model import Criterion, PassRule, Rubric, Scale

from .gitrepo import snapshot_of

BASE = {"README.md": "# p\n", "src/app.py": "def run():\n    return 1\n"}


def _scores(tmp_path: Path, head: dict[str, str | None]) -> dict[str, object]:
    report = auto_score(snapshot_of(tmp_path, BASE, head), resolve_rubric("agora-v3"), Config())
    return {"scores": report.scores(), "verdict": report.result.verdict, "report": report}


def test_source_without_tests_is_a_note_that_never_decides_a_fail(tmp_path: Path) -> None:
    """A one-line fix with no test change: verifiability 3, not 1, and no decided fail."""
    got = _scores(tmp_path, {"src/app.py": "def run():\n    return 2\n"})
    assert got["scores"] == {"verifiability": 3.0, "completeness": 5.0}
    assert got["verdict"] == "incomplete"
    report = got["report"]
    check = next(c for c in report.checks if c.id == "verifiability")  # type: ignore[attr-defined]
    assert [f.kind for f in check.findings] == ["note"]
    assert check.evidence[-1] == (
        "notes alone never score below the middle of the scale: value 0.00 held at 0.50"
    )
    assert check.evidence[0].startswith("note: missing tests: 1 source file changed")


def test_certain_stubs_the_change_adds_may_score_below_the_middle(tmp_path: Path) -> None:
    stubs = "".join(f"def step_{i}():\n    pass\n\n" for i in range(4))
    got = _scores(tmp_path, {"src/app.py": stubs, "tests/test_app.py": "def test_x():\n    x()\n"})
    assert got["scores"] == {"verifiability": 5.0, "completeness": 1.0}
    assert got["verdict"] == "fail"


def test_the_empty_change_is_certain(tmp_path: Path) -> None:
    got = _scores(tmp_path, {})
    assert got["scores"] == {"completeness": 1.0}
    assert got["verdict"] == "fail"


@pytest.mark.parametrize(
    ("value", "certain_value", "held"),
    [(0.0, 1.0, NOTE_FLOOR), (0.0, 0.2, 0.2), (0.3, 0.2, 0.3), (0.9, 1.0, 0.9), (0.0, 0.0, 0.0)],
)
def test_notes_hold_the_value_at_the_middle(
    value: float, certain_value: float, held: float
) -> None:
    result = check_result("c", [], criterion="c", value=value, certain_value=certain_value)
    assert result.value == pytest.approx(held)


def test_each_finding_says_its_kind_in_json_markdown_and_table(tmp_path: Path) -> None:
    report = _scores(tmp_path, {"src/app.py": "def run():\n    return 2  # TODO: drop\n"})["report"]
    data = report_json(report)  # type: ignore[arg-type]
    found = [f for c in data["checks"] for f in c["findings"]]
    assert sorted((f["kind"], f["rule"]) for f in found) == [
        ("certain", "todo-marker"),
        ("note", "tests"),
    ]
    assert "- **warning** (note) `src/app.py`" in render_markdown(report)  # type: ignore[arg-type]
    assert "    warning (certain): src/app.py:2: TODO marker" in render_table(report)  # type: ignore[arg-type]


def test_an_error_is_certain_and_a_warning_a_note_unless_said() -> None:
    assert Finding("c", "m", severity="error").kind == "certain"
    assert Finding("c", "m", severity="warning").kind == "note"
    assert Finding("c", "m", severity="warning", certain=True).kind == "certain"


def test_a_checklist_criterion_is_left_to_a_reviewer_on_notes_alone(tmp_path: Path) -> None:
    rubric = Rubric(
        id="r",
        version="1",
        dialect="agentv-assertions",
        scale=Scale(min=0, max=1, kind="checklist"),
        pass_rule=PassRule(min_total=0.8),
        criteria=(Criterion(id="verifiability", outcome="A reviewer can check it"),),
    )
    snapshot = snapshot_of(tmp_path, BASE, {"src/app.py": "def run():\n    return 2\n"})
    report = auto_score(snapshot, rubric, Config())
    assert report.criteria == ()
    assert report.result.verdict == "incomplete"
    assert report.notes == (
        "verifiability: not scored: notes alone do not decide a checklist criterion",
    )
