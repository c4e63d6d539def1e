"""Describe a rubric as JSON, markdown or a plain-text table (pure: no I/O).

`describe_json` is the `rubricate rubric show --json` shape; `describe_markdown` is what the
bot answers to `/rubric`; `grader_lines`, `grader_rows` and `graders_json` show an AgentV
result's graders and test. User text is escaped before it goes into markdown.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from rubricate.rubric.agentv.score import AgentVScoreResult, GraderResult
from rubricate.rubric.levels import scale_text
from rubricate.rubric.model import Criterion, Rubric, ScoreResult
from rubricate.rubric.scoring import REQUIRED_NORMALIZED

DIALECT_NAMES = {
    "native": "native",
    "agentv-assert": "AgentV assert (current)",
    "agentv-assertions": "AgentV assertions (v4)",
    "agentv-evaluator": "AgentV evalcases",
    "axes": "axes",
}


def describe_json(rubric: Rubric) -> dict[str, Any]:
    """The `--json` shape: id, version, dialect, scale, pass rule and criteria."""
    return {
        "id": rubric.id,
        "version": rubric.version,
        "dialect": rubric.dialect,
        "scale": {"min": rubric.scale.min, "max": rubric.scale.max, "open": rubric.scale.open},
        "pass": {"min_total": rubric.pass_rule.min_total, "min_each": rubric.pass_rule.min_each},
        "criteria": [_criterion_json(c) for c in rubric.criteria],
        **({"graders": [g.model_dump() for g in rubric.graders]} if rubric.graders else {}),
    }


def _criterion_json(criterion: Criterion) -> dict[str, Any]:
    return {
        "id": criterion.id,
        "outcome": criterion.outcome,
        "weight": criterion.weight,
        "required": criterion.required,
        "min_score": criterion.min_score,
        "nullable": criterion.nullable,
        "judged_from": criterion.judged_from,
        **({"continuous": True} if criterion.continuous else {}),
    }


def pass_text(rubric: Rubric) -> str:
    """The pass rule in words, e.g. `weighted total ≥ 3.5 and every score ≥ 2`."""
    if rubric.graders:
        return _graders_pass_text(rubric)
    rule = rubric.pass_rule
    parts = []
    if rule.min_total is not None:
        parts.append(f"weighted total ≥ {rule.min_total:g}")
    if rule.min_each is not None:
        parts.append(f"every score ≥ {rule.min_each:g}")
    if any(c.required or c.min_score is not None for c in rubric.criteria):
        parts.append("every required criterion passes its own bar")
    return " and ".join(parts) if parts else "every criterion scored"


def _graders_pass_text(rubric: Rubric) -> str:
    """AgentV's rule: the weighted mean of the graders' 0-1 scores reaches the threshold."""
    span = rubric.scale.max - rubric.scale.min
    threshold = ((rubric.pass_rule.min_total or 0) - rubric.scale.min) / span
    text = f"the weighted mean of the grader scores (0-1) ≥ {threshold:g}"
    required = [g.id for g in rubric.graders if g.required]
    if required:
        text += f", and each required grader ({', '.join(required)}) reaches its bar"
    gated = {cid for g in rubric.graders if g.required for cid in g.criteria}
    if any(
        c.id not in gated and ((c.required and not c.implied) or c.min_score is not None)
        for c in rubric.criteria
    ):
        text += ", and every criterion marked required passes its own bar"
    return text


def graders_rows(rubric: Rubric) -> list[tuple[str, str, str, str, str]]:
    """One row per AgentV grader: id, weight, required, mode and its criteria."""
    rows = []
    for grader in rubric.graders:
        bar = f"≥ {grader.min_score:g}" if grader.min_score is not None else "yes"
        mode = "analytic (0-10)" if grader.analytic else "checklist"
        mode = "free-form judge score (0-1)" if grader.continuous else mode
        mode += ", negated" if grader.negate else ""
        required = bar if grader.required else ""
        rows.append((grader.id, f"{grader.weight:g}", required, mode, ", ".join(grader.criteria)))
    return rows


def scale_words(rubric: Rubric) -> str:
    """The scale in words, e.g. `1-5`, `checklist (0-1)` or `open 0-100+`."""
    kind = rubric.scale.kind
    text = scale_text(rubric.scale)
    if kind == "checklist":
        return f"checklist ({text}: not met / met)"
    if kind == "analytic":
        return f"analytic ({text})"
    if kind == "open":
        return f"open ({text})"
    return text


def bar_text(rubric: Rubric, criterion: Criterion) -> str:
    """A criterion's own pass bar: its `min_score`, or the required default."""
    if criterion.min_score is not None:
        return f"≥ {criterion.min_score:.0%}"
    if criterion.required and rubric.graders:
        return "met"
    if criterion.required:
        return "met" if rubric.scale.binary else f"≥ {REQUIRED_NORMALIZED:.0%}"
    return ""


def describe_markdown(rubric: Rubric) -> str:
    """A markdown summary: header, pass rule, and a table of the criteria."""
    lines = [
        f"**Rubric {escape_markdown(rubric.id)}** · version {escape_markdown(rubric.version)} · "
        f"{DIALECT_NAMES[rubric.dialect]} · scale {scale_words(rubric)}",
        "",
        f"Passes when {pass_text(rubric)}.",
        "",
        "| criterion | weight | required | min score | outcome |",
        "|---|---:|:---:|---:|---|",
    ]
    lines += [_markdown_row(rubric, c) for c in rubric.criteria]
    if rubric.graders:
        lines += [
            "",
            "| grader | weight | required | mode | criteria |",
            "|---|---:|:---:|---|---|",
        ]
        lines += [
            "| " + " | ".join(escape_markdown(cell) for cell in row) + " |"
            for row in graders_rows(rubric)
        ]
    notes = _markdown_notes(rubric)
    return "\n".join(lines + (["", *notes] if notes else [])) + "\n"


def _markdown_row(rubric: Rubric, criterion: Criterion) -> str:
    name = f"`{criterion.id}`"
    if criterion.name:
        name += f" {escape_markdown(criterion.name)}"
    required = "yes" if criterion.required else ""
    return (
        f"| {name} | {criterion.weight:g} | {required} | {bar_text(rubric, criterion)} "
        f"| {escape_markdown(criterion.outcome)} |"
    )


def _markdown_notes(rubric: Rubric) -> list[str]:
    notes = []
    nullable = [c.id for c in rubric.criteria if c.nullable]
    if nullable:
        notes.append(f"May be null (not applicable): {', '.join(f'`{i}`' for i in nullable)}.")
    if rubric.request_criteria:
        ids = ", ".join(f"`{i}`" for i in rubric.request_criteria)
        notes.append(f"Judged from the request alone, first: {ids}.")
    return notes


def escape_markdown(text: str) -> str:
    """User text made safe for one markdown table cell: HTML escaped, `|` escaped, one line."""
    one_line = " ".join(text.split())
    return html.escape(one_line, quote=False).replace("|", "\\|")


def describe_text(rubric: Rubric) -> str:
    """A plain-text table for a terminal."""
    header = [
        f"{rubric.id}  version {rubric.version}  ({DIALECT_NAMES[rubric.dialect]})",
        f"scale {scale_words(rubric)}; passes when {pass_text(rubric)}",
        "",
    ]
    rows = [("criterion", "weight", "required", "bar", "outcome")]
    for c in rubric.criteria:
        flags = "yes" if c.required else ""
        flags += " (null ok)" if c.nullable else ""
        flags += " (request)" if c.judged_from == "request" else ""
        rows.append((c.id, f"{c.weight:g}", flags.strip(), bar_text(rubric, c), c.outcome))
    lines = header + format_table(rows)
    if rubric.graders:
        grader_rows = [("grader", "weight", "required", "mode", "criteria"), *graders_rows(rubric)]
        lines += ["", *format_table(grader_rows)]
    return "\n".join(lines) + "\n"


def format_table(rows: Sequence[Sequence[str]]) -> list[str]:
    """Rows aligned into columns; the last column is not padded."""
    widths = [max(len(" ".join(row[i].split())) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = []
    for row in rows:
        cells = [" ".join(cell.split()) for cell in row]
        padded = [cell.ljust(width) for cell, width in zip(cells, widths, strict=False)]
        lines.append("  ".join([*padded, cells[-1]]).rstrip())
    return lines


def grader_lines(result: ScoreResult) -> list[str]:
    """Text lines for the graders and the test of an AgentV result (empty for other results)."""
    if not isinstance(result, AgentVScoreResult) or not result.graders:
        return []
    width = max(len(g.id) for g in result.graders)
    lines = ["", f"{'grader':<{width}}  weight  score   verdict"]
    for grader in result.graders:
        value = "-" if grader.score is None else f"{round(grader.score, 4):g}"
        flag = f"  ({required_text(grader)})" if grader.required else ""
        lines.append(
            f"{grader.id:<{width}}  {grader.weight:>6g}  {value:<6}  {grader.verdict}{flag}"
        )
    test = "-" if result.normalized is None else f"{result.normalized:g}"
    band = f" ({result.band})" if result.band else ""
    line = f"test score {test} (threshold {result.threshold:g}): {result.verdict}{band}"
    lines.append(line + agentv_note(result))
    return lines


def required_text(grader: GraderResult) -> str:
    """`required ≥ BAR` and whether the grader met it, for a required grader."""
    bar = "" if grader.bar is None else f" ≥ {grader.bar:g}"
    met = {True: ": met", False: ": not met", None: ""}[grader.required_met]
    return f"required{bar}{met}"


def agentv_note(result: AgentVScoreResult) -> str:
    """Why rubricate's verdict differs from AgentV's own, or nothing when they agree."""
    if result.agentv_verdict is None:
        return ""
    failed = ", ".join(result.required_failed)
    return f"; required criterion failed: {failed} (AgentV alone: {result.agentv_verdict})"


def grader_rows(result: ScoreResult) -> list[str]:
    """A markdown table of the graders and the test of an AgentV result (empty for others)."""
    if not isinstance(result, AgentVScoreResult) or not result.graders:
        return []
    rows = ["| AgentV grader | Weight | Score | Verdict |", "| --- | ---: | ---: | --- |"]
    for grader in result.graders:
        value = "—" if grader.score is None else f"{round(grader.score, 4):g}"
        flag = f" ({required_text(grader)})" if grader.required else ""
        rows.append(f"| `{grader.id}`{flag} | {grader.weight:g} | {value} | {grader.verdict} |")
    test = "—" if result.normalized is None else f"{result.normalized:g}"
    band = f" ({result.band})" if result.band else ""
    note = escape_markdown(agentv_note(result))
    rows.append(
        f"| **Test** | | **{test}** | {result.verdict}{band}, threshold {result.threshold:g}"
        f"{note} |"
    )
    return rows


def graders_json(result: ScoreResult) -> dict[str, object]:
    """`graders` and `threshold` for a JSON report of an AgentV result (empty for others)."""
    if not isinstance(result, AgentVScoreResult) or not result.graders:
        return {}
    return {"graders": [g.as_dict() for g in result.graders], "threshold": result.threshold}
