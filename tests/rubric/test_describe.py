"""Describing a rubric as JSON, markdown and text."""

from __future__ import annotations

from rubricate.cli.rubric_cmd import resolve_rubric
from rubricate.rubric.describe import (
    describe_json,
    describe_markdown,
    describe_text,
    escape_markdown,
)

from .helpers import load


def test_json_shape() -> None:
    data = describe_json(resolve_rubric("agora-v3"))
    assert list(data) == ["id", "version", "dialect", "scale", "pass", "criteria"]
    assert data["scale"] == {"min": 1.0, "max": 5.0, "open": False}
    assert data["pass"] == {"min_total": 3.5, "min_each": 2.0}
    assert data["criteria"][0] == {
        "id": "spec_adherence",
        "outcome": (
            "Output addresses what the job asked for. No off-spec substitutions or "
            "out-of-scope additions."
        ),
        "weight": 0.3,
        "required": False,
        "min_score": None,
        "nullable": False,
        "judged_from": "submission",
    }


def test_markdown_table() -> None:
    text = describe_markdown(resolve_rubric("code-review"))
    lines = text.splitlines()
    assert (
        lines[0]
        == "**Rubric code-review** · version 1.0 · AgentV assert (current) · scale analytic (0-10)"
    )
    assert (
        "Passes when the weighted mean of the grader scores (0-1) ≥ 0.8, and each required "
        "grader (correctness, tests, security) reaches its bar." in lines
    )
    assert "| criterion | weight | required | min score | outcome |" in lines
    row = next(line for line in lines if line.startswith("| `tests`"))
    assert row.startswith("| `tests` Tests | 3 | yes | ≥ 50% | New and changed behaviour")


def test_markdown_notes_nullable_and_request_criteria() -> None:
    text = describe_markdown(resolve_rubric("agent-run-quality"))
    assert "May be null (not applicable): `subagent_orchestration`, `self_extension`." in text
    assert "Judged from the request alone, first: `task_complexity`." in text


def test_markdown_escapes_user_text() -> None:
    rubric = load(
        """\
        name: "<b>evil</b>"
        rubrics:
          - "Output uses | pipes and <script>alert(1)</script>\\nacross lines"
        """
    ).rubrics[0]
    text = describe_markdown(rubric)
    assert "<script>" not in text
    assert "<b>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "uses \\| pipes" in text
    row = next(line for line in text.splitlines() if "rubric-1" in line)
    assert row.endswith("across lines |")


def test_escape_markdown() -> None:
    assert escape_markdown("a|b <i>\n c & d") == "a\\|b &lt;i&gt; c &amp; d"


def test_checklist_bars_and_plain_text() -> None:
    rubric = load(
        "assertions:\n"
        "  - The reply states the average complexity\n"
        "  - The reply names the worst case\n"
    ).rubrics[0]
    text = describe_text(rubric)
    assert "scale checklist (0-1: not met / met)" in text
    lines = text.splitlines()
    assert lines[3].split()[:4] == ["criterion", "weight", "required", "bar"]
    assert lines[4].split()[:4] == ["rubric-1", "1", "yes", "met"]
