"""Render a ScoreReport as markdown (the bot's report) and as a terminal table (pure: text out).

Its JSON form is `results.report_json`.

Every piece of user text (paths, messages, evidence, criterion names) is escaped: HTML
is neutralised, markdown punctuation is backslash-escaped, `@mentions` cannot ping, and
table cells stay on one line.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Any

from rubricate.evidence.results import CheckResult, Finding, ScoreReport
from rubricate.numbers import decimal_text
from rubricate.rubric import describe
from rubricate.rubric.model import Rubric, ScoreResult, ScoreValue, at_least

MAX_FINDINGS_SHOWN = 50
MAX_EVIDENCE_SHOWN = 4
MAX_MARKDOWN = 60_000
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~<>#])")
VERDICT_ICON = {"pass": "✅", "fail": "❌", "incomplete": "⏳"}
STATUS_ICON = {"pass": "✅", "fail": "❌", "warn": "⚠️", "skip": "➖", "error": "💥"}


def escape(text: str) -> str:
    """Markdown-safe text: no HTML, no formatting, no mentions, one line."""
    flat = " ".join(str(text).split())
    escaped = _MD_SPECIAL.sub(r"\\\1", flat.replace("&", "&amp;"))
    return escaped.replace("@", "@&#8203;")


def escape_html(text: str) -> str:
    """Text for inside an HTML element (where markdown is not processed): no tags, no mentions."""
    flat = " ".join(str(text).split())
    return html.escape(flat, quote=False).replace("@", "@&#8203;")


def code(text: str) -> str:
    """An inline code span that survives backticks and pipes in its text."""
    flat = " ".join(str(text).split()).replace("|", "\\|")
    fence = "`" * (max((len(m) for m in re.findall(r"`+", flat)), default=0) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def format_score(value: ScoreValue) -> str:
    """A score for people: yes/no for checklists, at most two decimals for numbers."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return decimal_text(value)


def pass_rule_text(rubric: Rubric) -> str:
    """The rubric's pass rule in words."""
    if rubric.graders:  # AgentV: the weighted mean of the graders against the threshold
        return describe.pass_text(rubric)
    rule = rubric.pass_rule
    parts: list[str] = []
    if rule.min_total is not None:
        parts.append(f"total ≥ {format_score(rule.min_total)}")
    if rule.min_each is not None:
        parts.append(f"every score ≥ {format_score(rule.min_each)}")
    if any(c.required or c.min_score is not None for c in rubric.criteria):
        parts.append("required criteria met")
    return " and ".join(parts) or "no pass rule"


def verdict_text(report: ScoreReport) -> str:
    """One sentence that explains the verdict."""
    result = report.result
    if result.verdict == "incomplete":
        missing = ", ".join(result.missing) or "every criterion"
        return f"incomplete: not scored yet: {missing}; missing scores never count as zero"
    total = format_score(result.weighted_total)
    rule = pass_rule_text(report.rubric)
    if result.verdict == "pass":
        return f"pass: total {total}; the rule is {rule}"
    if result.missing:
        return f"fail, already decided: {decided_reason(report.rubric, result)}; the rule is {rule}"
    failed = f"; below the bar: {', '.join(result.failed)}" if result.failed else ""
    return f"fail: total {total}; the rule is {rule}{failed}"


def decided_reason(rubric: Rubric, result: ScoreResult) -> str:
    """Why a verdict with scores missing is already a fail."""
    missing = ", ".join(result.missing)
    floor = rubric.pass_rule.min_total
    best = result.best_total
    if floor is not None and best is not None and not at_least(best, floor):
        reach = f"{format_score(best)} < {format_score(floor)}"
        return f"even with the top score for {missing}, the total reaches only {reach}"
    return f"below the bar: {', '.join(result.failed)} (whatever {missing} will score)"


def next_step(report: ScoreReport) -> str:
    """One line that says what to do next."""
    result = report.result
    if result.verdict == "incomplete":
        missing = ", ".join(result.missing) or "every criterion"
        verb = "needs" if len(result.missing) == 1 else "need"
        return (
            f"next: {missing} {verb} a reviewer (/score ID=N on the pull request) or the judge "
            "(--judge openai with OPENAI_API_KEY set)"
        )
    if result.verdict == "pass":
        return "next: the verdict is final (pass); open the pull request for a reviewer's /approve"
    what = ", ".join(result.failed) or "the weighted total"
    return f"next: the verdict is final (fail); improve {what} and run rubricate score again"


def scored_text(rubric: Rubric, result: ScoreResult) -> str:
    """`4 of 5 scored` while a criterion is unscored, else empty."""
    if not result.missing:
        return ""
    return f"{len(rubric.criteria) - len(result.missing)} of {len(rubric.criteria)} scored"


def _agentv(result: ScoreResult, render: str) -> list[str]:
    """AgentV grader rows (`grader_rows`) or lines (`grader_lines`)."""
    if not getattr(result, "graders", ()):
        return []
    return list(getattr(describe, render)(result))


def render_markdown(report: ScoreReport) -> str:
    """The report the bot posts: score table, verdict, findings folded in `<details>`."""
    lines = [*_heading(report), "", *_score_table(report), ""]
    graders = _agentv(report.result, "grader_rows")
    lines += [*graders, ""] if graders else []
    lines.append(f"**Verdict:** {escape(verdict_text(report))}")
    if report.notes:
        lines += ["", *(f"- {escape(note)}" for note in report.notes)]
    if report.judge:
        lines += ["", _judge_line(report.judge)]
    for check in report.checks:
        lines += ["", *_check_details(check)]
    text = "\n".join(lines) + "\n"
    if len(text) > MAX_MARKDOWN:
        text = text[:MAX_MARKDOWN].rsplit("\n", 1)[0] + "\n\n_(report truncated)_\n"
    return text


def _heading(report: ScoreReport) -> list[str]:
    result = report.result
    icon = VERDICT_ICON[result.verdict]
    total = format_score(result.weighted_total)
    top = format_score(report.rubric.scale.max)
    rubric = report.rubric
    scored = scored_text(rubric, result)
    partial = f" ({scored.replace(' scored', ' criteria scored')})" if scored else ""
    return [
        f"### {icon} rubricate: **{result.verdict}** · {total} / {top}{partial}",
        "",
        f"Rubric {code(rubric.id)} version {code(rubric.version)} · "
        f"base {code(report.base[:12])} → head {code(report.head[:12])}",
    ]


def _score_table(report: ScoreReport) -> list[str]:
    by_id = {c.id: c for c in report.criteria}
    rows = [
        "| Criterion | Weight | Score | Source | Evidence |",
        "| --- | ---: | ---: | --- | --- |",
    ]
    for criterion in report.rubric.criteria:
        scored = by_id.get(criterion.id)
        name = escape(criterion.name) + " " if criterion.name else ""
        weight = f"{criterion.weight:.2f}"
        if scored is None:
            rows.append(f"| {name}{code(criterion.id)} | {weight} | — | — | not scored |")
            continue
        evidence = "<br>".join(escape(e) for e in scored.evidence[:MAX_EVIDENCE_SHOWN]) or "—"
        score = format_score(scored.score)
        rows.append(
            f"| {name}{code(criterion.id)} | {weight} | {score} | {scored.source} | {evidence} |"
        )
    total = format_score(report.result.weighted_total)
    counted = scored_text(report.rubric, report.result)
    if counted:
        total += f" ({counted})"
    rule = escape(pass_rule_text(report.rubric))
    rows.append(f"| **Weighted total** | | **{total}** | | a pass needs {rule} |")
    return rows


def _judge_line(judge: dict[str, Any]) -> str:
    keys = ("model", "prompt_version", "tokens_in", "tokens_out", "cached")
    shown = ", ".join(f"{k} {escape(str(judge[k]))}" for k in keys if k in judge)
    return f"Judge: {shown}" if shown else "Judge: used"


def _check_details(check: CheckResult) -> list[str]:
    icon = STATUS_ICON.get(check.status, "")
    summary = f"{icon} {escape_html(check.id)}: {check.status}" + _counts(check.findings)
    body = [f"- {escape(line)}" for line in check.evidence]
    body += [_finding_line(f) for f in check.findings[:MAX_FINDINGS_SHOWN]]
    if len(check.findings) > MAX_FINDINGS_SHOWN:
        body.append(f"- … and {len(check.findings) - MAX_FINDINGS_SHOWN} more findings")
    return [
        "<details>",
        f"<summary>{summary}</summary>",
        "",
        *(body or ["- nothing to report"]),
        "",
        "</details>",
    ]


def _counts(findings: Sequence[Finding]) -> str:
    if not findings:
        return ""
    counts = {s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "info")}
    parts = [f"{n} {s}{'s' if n > 1 else ''}" for s, n in counts.items() if n]
    return " · " + ", ".join(parts)


def _finding_line(finding: Finding) -> str:
    where = finding.path or ""
    if finding.path and finding.line:
        where = f"{finding.path}:{finding.line}"
    located = f"{code(where)} " if where else ""
    return f"- **{finding.severity}**{finding.kind_label} {located}{escape(finding.message)}"


EVIDENCE_WIDTH = 64
TABLE_FINDINGS_SHOWN = 20
MAX_MESSAGE_LINES = 8


def render_table(report: ScoreReport) -> str:
    """Criteria with score, source and evidence; the verdict; then each check's findings."""
    rubric = report.rubric
    lines = [
        f"rubricate score · rubric {rubric.id} {rubric.version} · "
        f"base {report.base[:12]} -> head {report.head[:12]}",
        "",
    ]
    lines += _criteria_rows(report)
    lines += _agentv(report.result, "grader_lines")
    lines += ["", f"verdict: {verdict_text(report)}"]
    lines += [f"note: {note}" for note in report.notes]
    lines += ["", "checks:"]
    width = max((len(check.id) for check in report.checks), default=5)
    for check in report.checks:
        lines += _check_lines(check, width)
    lines += ["", next_step(report)]
    return "\n".join(_plain(line) for line in lines) + "\n"


def _criteria_rows(report: ScoreReport) -> list[str]:
    by_id = {c.id: c for c in report.criteria}
    width = max([len("criterion"), *(len(c.id) for c in report.rubric.criteria)])
    rows = [f"{'criterion':<{width}}  weight  score  source    evidence"]
    for criterion in report.rubric.criteria:
        scored = by_id.get(criterion.id)
        score = format_score(scored.score) if scored else "-"
        source = scored.source if scored else "-"
        evidence = _clip(scored.evidence[0]) if scored and scored.evidence else "not scored"
        weight = f"{criterion.weight:.2f}"
        rows.append(f"{criterion.id:<{width}}  {weight:>6}  {score:>5}  {source:<8}  {evidence}")
    total = format_score(report.result.weighted_total)
    normalized = format_score(report.result.normalized)
    counted = scored_text(report.rubric, report.result)
    tail = f"{counted}, so far" if counted else f"normalized {normalized}"
    rows.append(f"{'total':<{width}}  {'':>6}  {total:>5}  {tail}")
    return rows


def _check_lines(check: CheckResult, width: int) -> list[str]:
    summary = _clip(check.evidence[0]) if check.evidence else ""
    lines = [f"  {check.id:<{width}}  {check.status:<5}  {summary}"]
    for finding in check.findings[:TABLE_FINDINGS_SHOWN]:
        where = f"{finding.path}:{finding.line}" if finding.path and finding.line else finding.path
        located = f"{where}: " if where else ""
        first, *rest = finding.message.splitlines() or [""]
        lines.append(f"    {finding.severity}{finding.kind_label}: {located}{first}")
        lines += [f"      {more}" for more in rest[:MAX_MESSAGE_LINES]]
    if len(check.findings) > TABLE_FINDINGS_SHOWN:
        lines.append(f"    ... and {len(check.findings) - TABLE_FINDINGS_SHOWN} more")
    return lines


def _clip(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EVIDENCE_WIDTH else flat[: EVIDENCE_WIDTH - 3] + "..."


def _plain(line: str) -> str:
    """Drop control characters so user text cannot move the cursor or recolour the terminal."""
    return "".join(ch if ch.isprintable() or ch == "\t" else "?" for ch in line).rstrip()
