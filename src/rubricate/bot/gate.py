"""The merge gate and the effective score of a job (pure: job state in, decisions out).

The gate of an open PR is the approval of its current version (or of the version a head commit
belongs to): pending without one, success when it passes or is overridden, failure when it fails
without an override. A new version that changes the tree has no approval yet, so the gate goes
back to pending; a head that returns to an older tree gets that version's own gate.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rubricate.bot.markdown import number
from rubricate.bot.messages import STATUS
from rubricate.bot.record import known_scores
from rubricate.rubric.agentv_score import score_any
from rubricate.rubric.model import ScoreResult

if TYPE_CHECKING:
    from rubricate.bot.effects import StatusState
    from rubricate.bot.jobstate import JobState
    from rubricate.rubric.model import Rubric, ScoreValue

STATUS_LIMIT = 140


@dataclass(frozen=True)
class Gate:
    """The commit status of the gate: its state and its description (at most 140 characters)."""

    state: StatusState
    description: str


@dataclass(frozen=True)
class Effective:
    """The score that stands for a job now, and where it comes from."""

    label: str
    scores: Mapping[str, ScoreValue]
    result: ScoreResult | None


def gate_of(job: JobState, rubric: Rubric, version: int | None = None) -> Gate:
    """The gate status of a version of the job (the current one by default)."""
    version = job.current_version if version is None else version
    approval = job.approvals.get(version)
    if approval is None:
        return _gate("pending", STATUS["pending"].format(version=version))
    total = f"{number(approval.weighted_total)}/{number(rubric.scale.max)}"
    if approval.override is not None:
        return _gate("success", STATUS["overridden"].format(version=version, total=total))
    if approval.verdict == "pass":
        return _gate("success", STATUS["passed"].format(version=version, total=total))
    return _gate("failure", STATUS["failed"].format(version=version, total=total))


def _gate(state: StatusState, description: str) -> Gate:
    if len(description) > STATUS_LIMIT:
        description = description[: STATUS_LIMIT - 1] + "…"
    return Gate(state, description)


def result_of(rubric: Rubric, scores: Mapping[str, ScoreValue]) -> ScoreResult | None:
    """The scoring result of recorded scores under the rubric (None when nothing is scored)."""
    known = known_scores(rubric, scores)
    return score_any(rubric, known) if known else None


def effective(job: JobState, rubric: Rubric) -> Effective:
    """The final approval, else the current approval, reviewer scores, or automatic scores."""
    if job.final is not None and job.final.scores is not None:
        label = f"final approval, gate {job.final.gate}"
        return Effective(label, job.final.scores, result_of(rubric, job.final.scores))
    version = job.current_version
    approval = job.approval
    if approval is not None:
        return Effective(
            f"approval of v{version}", approval.scores, result_of(rubric, approval.scores)
        )
    reviewer = job.reviewer_scores.get(version)
    if reviewer:
        return Effective(f"reviewer scores of v{version}", reviewer, result_of(rubric, reviewer))
    auto = job.auto.get(version)
    scores = auto.scores if auto else {}
    return Effective(f"automatic score of v{version}", scores, result_of(rubric, scores))


def gate_output(job: JobState, rubric: Rubric) -> str:
    """The `gate` job output: the final gate, `abandoned`, or the status state."""
    if job.final is not None:
        return job.final.gate or "bypassed"
    if job.abandoned:
        return "abandoned"
    return gate_of(job, rubric).state
