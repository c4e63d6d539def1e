"""Render a ScoreReport as a plain-text table for a terminal (pure: data in, text out)."""

from __future__ import annotations

from rubricate.evidence.report_model import CheckResult, ScoreReport
from rubricate.evidence.score_report import (
    format_score,
    next_step,
    scored_text,
    verdict_text,
)
from rubricate.rubric.describe import grader_lines

EVIDENCE_WIDTH = 64
MAX_FINDINGS_SHOWN = 20
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
    lines += grader_lines(report.result)
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
    for finding in check.findings[:MAX_FINDINGS_SHOWN]:
        where = f"{finding.path}:{finding.line}" if finding.path and finding.line else finding.path
        located = f"{where}: " if where else ""
        first, *rest = finding.message.splitlines() or [""]
        lines.append(f"    {finding.severity}: {located}{first}")
        lines += [f"      {more}" for more in rest[:MAX_MESSAGE_LINES]]
    if len(check.findings) > MAX_FINDINGS_SHOWN:
        lines.append(f"    ... and {len(check.findings) - MAX_FINDINGS_SHOWN} more")
    return lines


def _clip(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EVIDENCE_WIDTH else flat[: EVIDENCE_WIDTH - 3] + "..."


def _plain(line: str) -> str:
    """Drop control characters so user text cannot move the cursor or recolour the terminal."""
    return "".join(ch if ch.isprintable() or ch == "\t" else "?" for ch in line).rstrip()
