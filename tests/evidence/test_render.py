"""Markdown, JSON and text renderings of a ScoreReport, with user text escaped."""

from __future__ import annotations

import re

import pytest

from rubricate.cli.rubric_cmd import resolve_rubric
from rubricate.evidence.render import code, escape, render_markdown, render_table
from rubricate.evidence.results import (
    CheckResult,
    CriterionScore,
    Finding,
    ScoreReport,
    report_json,
)
from rubricate.rubric.scoring import score

NASTY = "<script>alert(1)</script> | @octocat **bold** `tick` [x](http://e) &amp;"


def _report(verdict_scores: dict[str, float]) -> ScoreReport:
    rubric = resolve_rubric("agora-v3")
    criteria = tuple(
        CriterionScore(cid, value, "auto", (NASTY, "second"))
        for cid, value in verdict_scores.items()
    )
    findings = (
        Finding("format", NASTY, "out/a|b.json", 3, "error"),
        Finding("format", "plain", None, None, "info"),
    )
    checks = (
        CheckResult("format", "fail", findings, "format_correctness", 3.0, ("1 of 2 checks",), 0.5),
        CheckResult("inputs", "pass", (), None, None, ("2 files changed",)),
    )
    return ScoreReport(
        rubric=rubric,
        base="a" * 40,
        head="b" * 40,
        criteria=criteria,
        checks=checks,
        result=score(rubric, verdict_scores),
        not_scored=tuple(c for c in rubric.ids if c not in verdict_scores),
        notes=(f"note {NASTY}",),
    )


def test_escape_neutralises_markdown_html_and_mentions() -> None:
    text = escape(NASTY + "\nnext line")
    assert "<" not in text.replace("\\<", "")
    assert ">" not in text.replace("\\>", "")
    assert "\\|" in text
    assert "\n" not in text
    assert "@&#8203;octocat" in text
    assert "&amp;amp;" in text
    assert "\\*\\*bold\\*\\*" in text


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("a.py", "`a.py`"), ("a`b", "``a`b``"), ("`x", "`` `x ``"), ("a|b", "`a\\|b`")],
)
def test_code_spans(raw: str, expected: str) -> None:
    assert code(raw) == expected


def test_markdown_report() -> None:
    text = render_markdown(_report({"spec_adherence": 4, "completeness": 3}))
    assert text.startswith("### ⏳ rubricate: **incomplete** · 3.6 / 5 (2 of 5 criteria scored)")
    assert "| Spec adherence `spec_adherence` | 0.30 | 4 | auto |" in text
    assert "| Quality `quality` | 0.25 | — | — | not scored |" in text
    assert (
        "**Verdict:** incomplete: not scored yet: quality, verifiability, format\\_correctness"
        in text
    )
    assert "<summary>❌ format: fail · 1 error, 1 info</summary>" in text
    assert "- **error** (certain) `out/a\\|b.json:3` \\<script\\>" in text
    assert "<script>" not in text
    assert "@octocat" not in text
    for line in text.splitlines():
        if line.startswith("| "):
            assert len(re.findall(r"(?<!\\)\|", line)) == 6


def test_markdown_verdicts() -> None:
    passing = {
        "spec_adherence": 4,
        "completeness": 4,
        "quality": 4,
        "verifiability": 4,
        "format_correctness": 4,
    }
    assert "**Verdict:** pass: total 4" in render_markdown(_report(passing))
    failing = {**passing, "quality": 1}
    assert "below the bar: quality" in render_markdown(_report(failing))


def test_long_reports_are_truncated() -> None:
    report = _report({"spec_adherence": 4})
    many = tuple(Finding("x", "y" * 200, f"f{i}.py", i) for i in range(50))
    checks = tuple(CheckResult(f"c{i}", "warn", many) for i in range(20))
    text = render_markdown(
        ScoreReport(report.rubric, "a", "b", report.criteria, checks, report.result)
    )
    assert len(text) <= 60_100
    assert text.endswith("_(report truncated)_\n")


def test_report_json_shape() -> None:
    data = report_json(_report({"spec_adherence": 4, "completeness": 3}))
    assert list(data)[:9] == [
        "rubric",
        "base",
        "head",
        "verdict",
        "weighted_total",
        "normalized",
        "criteria",
        "checks",
        "not_scored",
    ]
    assert data["rubric"] == {"id": "agora-v3", "version": "3.0"}
    assert data["criteria"][0] == {
        "id": "spec_adherence",
        "score": 4,
        "source": "auto",
        "evidence": [NASTY, "second"],
        "weight": 0.3,
        "passed": True,
    }
    check = data["checks"][0]
    assert {"id", "status", "findings"} <= set(check)
    assert check["findings"][0] == {
        "path": "out/a|b.json",
        "line": 3,
        "message": NASTY,
        "severity": "error",
        "kind": "certain",
        "rule": None,
    }
    assert data["not_scored"] == ["quality", "verifiability", "format_correctness"]


def test_text_table() -> None:
    text = render_table(_report({"spec_adherence": 4, "completeness": 3}))
    lines = text.splitlines()
    assert lines[0] == f"rubricate score · rubric agora-v3 3.0 · base {'a' * 12} -> head {'b' * 12}"
    assert "spec_adherence        0.30      4  auto      <script>alert(1)</script>" in text
    assert "quality               0.25      -  -         not scored" in text
    assert "    error (certain): out/a|b.json:3: <script>" in text
    control = _report({"spec_adherence": 4})
    bell = ScoreReport(
        control.rubric,
        "a",
        "b",
        (CriterionScore("quality", 3, "auto", ("\x1b[31mred\x07",)),),
        (),
        control.result,
    )
    assert "\x1b" not in render_table(bell)
    assert "\x07" not in render_table(bell)
