"""The view effects: sticky comment, check run, gate status and job outputs (pure).

Views are pure functions of the job state folded from the ledger (and of the automatic report
for the check run, when the shell computed one), so a re-run rebuilds them identically.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from rubricate.bot.effects import Annotation, SetCheckRun, SetOutputs, SetStatus, UpsertComment
from rubricate.bot.gate import effective, gate_of, gate_output
from rubricate.bot.markdown import number
from rubricate.bot.render import STICKY_MARKER, sticky_body
from rubricate.bot.render_replies import check_summary, check_text, check_title

if TYPE_CHECKING:
    from rubricate.bot.jobstate import JobState
    from rubricate.evidence.report_model import ScoreReport
    from rubricate.rubric.model import Rubric

MAX_ANNOTATIONS = 1000
AnnotationLevel = Literal["notice", "warning", "failure"]
_LEVELS: dict[str, AnnotationLevel] = {"error": "failure", "warning": "warning", "info": "notice"}


def sticky(job: JobState, rubric: Rubric) -> UpsertComment:
    """The one sticky comment, found by its marker (and by id when the ledger knows it)."""
    return UpsertComment(job.pr, sticky_body(job, rubric), STICKY_MARKER, job.sticky_comment_id)


def status(job: JobState, rubric: Rubric, sha: str) -> SetStatus:
    """The `rubricate/approval` gate status on a head commit: the gate of its own version."""
    version = job.version_of_head(sha)
    gate = gate_of(job, rubric, version.number if version else None)
    return SetStatus(sha, gate.state, gate.description)


def check_run(job: JobState, rubric: Rubric, sha: str, report: ScoreReport | None) -> SetCheckRun:
    """The `rubricate` check run: neutral, since the automatic score never gates."""
    auto = job.auto.get(job.current_version)
    return SetCheckRun(
        head_sha=sha,
        title=check_title(job, rubric),
        summary=check_summary(job, rubric, report),
        conclusion="neutral",
        text=check_text(auto, report),
        annotations=finding_annotations(report),
    )


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


def finding_annotations(report: ScoreReport | None) -> tuple[Annotation, ...]:
    """Check-run annotations for the located findings of the report."""
    if report is None:
        return ()
    found = [
        Annotation(
            path=finding.path,
            line=finding.line,
            message=finding.message,
            level=_LEVELS.get(finding.severity, "warning"),
            title=check.id,
        )
        for check in report.checks
        for finding in check.findings
        if finding.path and finding.line and finding.line > 0
    ]
    return tuple(found[:MAX_ANNOTATIONS])
