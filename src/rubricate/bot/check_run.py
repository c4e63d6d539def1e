"""The `rubricate` check run of a head, from the job state and the automatic report (pure).

The check run is a pure function of the folded job state (and of the automatic report, when the
shell computed one), so a re-run rebuilds it identically. It is neutral: the automatic score
never gates.
"""

from __future__ import annotations

from typing import Literal

from rubricate.bot.effects import Annotation, SetCheckRun
from rubricate.bot.jobstate import AutoScore, JobState
from rubricate.bot.markdown import number, truncate
from rubricate.bot.sticky import criteria_table, findings_section, gate_line
from rubricate.evidence.render import render_markdown
from rubricate.evidence.results import ScoreReport
from rubricate.rubric.model import Rubric

CHECK_NOTE = (
    "The automatic score is informational: it never gates the merge. "
    "The gate is the `rubricate/approval` status, set by a reviewer's `/approve`."
)
MAX_ANNOTATIONS = 1000
AnnotationLevel = Literal["notice", "warning", "failure"]
_LEVELS: dict[str, AnnotationLevel] = {"error": "failure", "warning": "warning", "info": "notice"}
CHECK_LIMIT = 65_535


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


def recorded_annotations(auto: AutoScore | None) -> tuple[Annotation, ...]:
    """Check-run annotations of the located findings recorded for a version."""
    found = []
    for entry in auto.evidence if auto else ():
        line, path = entry.get("line"), entry.get("path")
        if entry.get("type") != "finding" or not path or not isinstance(line, int) or line < 1:
            continue
        title = str(entry.get("check", ""))
        found.append(
            Annotation(
                path=str(path),
                line=line,
                message=str(entry.get("message", "")),
                level=_LEVELS.get(str(entry.get("severity")), "warning"),
                title=f"{title} (untrusted graders run)" if entry.get("untrusted") else title,
            )
        )
    return tuple(found[:MAX_ANNOTATIONS])


def check_title(job: JobState, rubric: Rubric) -> str:
    """The check run's title: the automatic score of the current version."""
    version = job.current_version
    auto = job.auto.get(version)
    moment = "FIRST_SUBMISSION v1" if version == 1 else f"v{version} automatic score"
    if auto is None or auto.weighted_total is None:
        return f"{moment}: no automatic score"
    total = f"{number(auto.weighted_total)}/{number(rubric.scale.max)}"
    return f"{moment}: {total} · {auto.verdict} (informational)"


def check_summary(job: JobState, rubric: Rubric, report: ScoreReport | None) -> str:
    """The check run's summary: the note, the gate and the report, cut under the limit."""
    scores = render_markdown(report) if report is not None else criteria_table(job, rubric)
    parts = [CHECK_NOTE, gate_line(job, rubric), scores]
    return truncate("\n\n".join(parts), CHECK_LIMIT, "; see the job's step summary")


def check_text(auto: AutoScore | None, report: ScoreReport | None) -> str:
    """The check run's text: the recorded findings, when the summary has no report to show."""
    if report is not None:
        return ""
    return truncate(findings_section(auto), CHECK_LIMIT, "; see the job's step summary")
