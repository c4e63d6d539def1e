"""The sticky comment, and the job outputs whose step summary is its body (pure: no I/O).

It shows the rubric and version, each criterion's automatic, judge and reviewer score with its
evidence, the weighted total and verdict, the FIRST_SUBMISSION summary, the version history,
approvals and every override reason, feedback, and the findings folded in `<details>`. Every
piece of user text is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rubricate.bot.effects import SetOutputs, UpsertComment
from rubricate.bot.gate import gate_of, gate_output
from rubricate.bot.jobstate import Approval, AutoScore, JobState, VersionInfo
from rubricate.bot.markdown import (
    DASH,
    block,
    cell,
    code,
    details,
    escape,
    number,
    score_text,
    table,
    truncate,
)
from rubricate.bot.standing import effective, result_of
from rubricate.rubric.model import Rubric, ScoreResult

STICKY_MARKER = "<!-- rubricate:sticky -->"
COMMENT_LIMIT = 65_000
_GATE_ICONS = {"pending": "⏳", "success": "✅", "failure": "❌", "error": "❌"}


def sticky_body(job: JobState, rubric: Rubric) -> str:
    """The whole sticky comment, marker first, cut under GitHub's comment size limit."""
    parts = [
        STICKY_MARKER,
        _heading(job, rubric),
        gate_line(job, rubric),
        criteria_table(job, rubric),
        _first_submission(job, rubric),
        _versions(job, rubric),
        _approvals(job, rubric),
        _feedback(job),
        findings_section(job.auto.get(job.current_version)),
    ]
    return truncate("\n\n".join(part for part in parts if part), COMMENT_LIMIT)


def _heading(job: JobState, rubric: Rubric) -> str:
    rubric_text = f"{code(rubric.id)} {escape(rubric.version)}"
    return f"### rubricate · rubric {rubric_text} · PR version v{job.current_version}"


def gate_line(job: JobState, rubric: Rubric) -> str:
    """One line on the gate: merged, abandoned, or the approval status."""
    final = job.final
    if final is not None:
        outcome = f"{number(final.weighted_total)} · {final.verdict}"
        return f"**Merged** · FINAL_APPROVAL of v{final.version}: {outcome} · gate **{final.gate}**"
    if job.abandoned:
        return "**Closed without merge** · the job is abandoned"
    gate = gate_of(job, rubric)
    return f"{_GATE_ICONS[gate.state]} **Gate** `rubricate/approval`: {escape(gate.description)}"


def criteria_table(job: JobState, rubric: Rubric) -> str:
    """Per criterion of the current version: auto, judge and reviewer scores, with evidence."""
    auto = job.auto.get(job.current_version)
    reviewer = job.reviewer_scores.get(job.current_version, {})
    sources = _auto_sources(auto)
    rows = []
    for criterion in rubric.criteria:
        cid = criterion.id
        value, has_auto = (auto.scores.get(cid), cid in auto.scores) if auto else (None, False)
        source = sources.get(cid, "auto")
        rows.append(
            [
                f"{cell(criterion.title)} {code(cid)}" if criterion.name else code(cid),
                number(criterion.weight),
                score_text(value, has_auto and source != "judge"),
                score_text(value, has_auto and source == "judge"),
                score_text(reviewer.get(cid), cid in reviewer),
                _evidence_cell(auto, cid),
            ]
        )
    header = ["criterion", "weight", "auto", "judge", "reviewer", "evidence"]
    standing = effective(job, rubric)
    return "\n\n".join(
        [
            table(header, rows, "lrrrrl"),
            f"**Weighted total** ({standing.label}): {_outcome(standing.result, rubric)}",
        ]
    )


def _outcome(result: ScoreResult | None, rubric: Rubric) -> str:
    if result is None:
        return "nothing scored yet"
    text = f"{number(result.weighted_total)} / {number(rubric.scale.max)} · **{result.verdict}**"
    if result.missing:
        text += f" (missing: {', '.join(code(cid) for cid in result.missing)})"
    return text


def _first_submission(job: JobState, rubric: Rubric) -> str:
    if not job.first_submission:
        return ""
    result = result_of(rubric, job.first_submission)
    by_source: dict[str, list[str]] = {}
    for cid in job.first_submission:
        by_source.setdefault(job.first_sources.get(cid, "auto"), []).append(code(cid))
    origin = "; ".join(f"{src}: {', '.join(ids)}" for src, ids in sorted(by_source.items()))
    line = f"#### FIRST_SUBMISSION (v1)\n\n{_outcome(result, rubric)} · {origin}"
    return line + "\n\n_Informational: the first submission never gates the merge._"


def _versions(job: JobState, rubric: Rubric) -> str:
    if not job.versions:
        return ""
    rows = [_version_row(job, rubric, version) for version in job.versions]
    header = ["version", "head", "tree", "automatic", "reviewer", "approval"]
    return "#### Versions\n\n" + table(header, rows)


def _version_row(job: JobState, rubric: Rubric, version: VersionInfo) -> list[str]:
    auto = job.auto.get(version.number)
    reviewer = job.reviewer_scores.get(version.number)
    approval = job.approvals.get(version.number)
    rebases = len(version.heads) - 1
    head = code(version.head_sha[:7]) if version.head_sha else DASH
    return [
        f"v{version.number}",
        head + (f" (+{rebases} rebase{'s' * (rebases > 1)})" if rebases > 0 else ""),
        code(version.tree_sha[:7]) if version.tree_sha else DASH,
        _short_outcome(result_of(rubric, auto.scores) if auto else None),
        _short_outcome(result_of(rubric, reviewer) if reviewer else None),
        _approval_cell(approval),
    ]


def _short_outcome(result: ScoreResult | None) -> str:
    return DASH if result is None else f"{number(result.weighted_total)} {result.verdict}"


def _approval_cell(approval: Approval | None) -> str:
    if approval is None:
        return DASH
    mark = "overridden" if approval.override else approval.verdict
    return f"{cell(approval.actor, 40)}: {number(approval.weighted_total)} {mark}"


def _approvals(job: JobState, rubric: Rubric) -> str:
    if not job.approval_history:
        return ""
    lines = []
    for approval in job.approval_history:
        if approval.override is not None:
            info = approval.override
            lines.append(
                f"- **Override** of v{info.version} by {cell(info.actor, 40)}:\n\n"
                + block(info.reason)
            )
        else:
            total = f"{number(approval.weighted_total)} / {number(rubric.scale.max)}"
            lines.append(
                f"- v{approval.version} approved by {cell(approval.actor, 40)}: "
                f"{total} · {approval.verdict}"
            )
    return "#### Approvals\n\n" + "\n\n".join(lines)


def _feedback(job: JobState) -> str:
    if not job.feedback:
        return ""
    lines = []
    for item in job.feedback:
        label = {"revise": "changes requested", "note": "score note"}.get(item.kind, item.kind)
        if item.rating is not None:
            label += f" {item.rating}/5"
        head = f"- v{item.version} · {cell(item.actor, 40)} · {label}"
        lines.append(head + (":\n\n" + block(item.text) if item.text else ""))
    return "#### Feedback\n\n" + "\n\n".join(lines)


def findings_section(auto: AutoScore | None) -> str:
    """The automatic findings of a version, folded in `<details>`."""
    entries = [e for e in (auto.evidence if auto else ()) if e.get("type") == "finding"]
    if not entries:
        return ""
    lines = [_finding_line(entry) for entry in entries]
    notes = (
        [cell(str(e.get("text", ""))) for e in auto.evidence if e.get("type") == "note"]
        if auto
        else []
    )
    body = "\n".join(lines + [f"- _{note}_" for note in notes])
    title = f"Findings ({len(entries)})" + (f" and notes ({len(notes)})" if notes else "")
    return details(title, body)


def _finding_line(entry: Mapping[str, Any]) -> str:
    where = str(entry.get("path") or "")
    if where and entry.get("line"):
        where += f":{entry['line']}"
    located = f"{code(where)} " if where else ""
    severity = escape(str(entry.get("severity", "warning")))
    check = escape(str(entry.get("check", "")))
    return f"- {located}{cell(str(entry.get('message', '')), 300)} ({severity}, {check})"


def _auto_sources(auto: AutoScore | None) -> dict[str, str]:
    if auto is None:
        return {}
    return {
        str(e["id"]): str(e.get("source") or auto.source)
        for e in auto.evidence
        if e.get("type") == "criterion" and "id" in e
    }


def _evidence_cell(auto: AutoScore | None, criterion_id: str) -> str:
    for entry in auto.evidence if auto else ():
        if entry.get("type") == "criterion" and entry.get("id") == criterion_id:
            texts = [str(text) for text in entry.get("evidence") or ()]
            return cell("; ".join(texts)) if texts else DASH
    return DASH


def sticky(job: JobState, rubric: Rubric, *, fresh: bool = False) -> UpsertComment:
    """The one sticky comment, found by its marker (and by id when the ledger knows it)."""
    body = sticky_body(job, rubric)
    return UpsertComment(job.pr, body, STICKY_MARKER, job.sticky_comment_id, fresh)


def outputs(job: JobState, rubric: Rubric) -> SetOutputs:
    """The job outputs (`verdict`, `weighted-total`, `normalized`, `gate`) and step summary."""
    standing = effective(job, rubric)
    result = standing.result
    values = {
        "verdict": result.verdict if result else "incomplete",
        "weighted-total": number(result.weighted_total, 4) if result else "",
        "normalized": number(result.normalized, 4) if result else "",
        "gate": gate_output(job, rubric),
        "version": str(job.current_version),
    }
    summary = sticky_body(job, rubric).removeprefix(STICKY_MARKER).lstrip()
    return SetOutputs(values, summary)
