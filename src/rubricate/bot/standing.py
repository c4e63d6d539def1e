"""Which scores stand for a PR job: now (`effective`), and at its merge (`final_choice`) (pure).

`final_choice` is the one rule for the scores of a `final_approval`, shared by the merge handler
(`rubricate.bot.on_pr`) and catch-up (`rubricate.bot.catch_up`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rubricate.bot.jobstate import Approval, JobState, Scores
from rubricate.ledger.event import Gate as FinalGate
from rubricate.rubric import scoring
from rubricate.rubric.model import Rubric, ScoreResult, ScoreValue


@dataclass(frozen=True)
class Effective:
    """The score that stands for a job now, and where it comes from."""

    label: str
    scores: Mapping[str, ScoreValue]
    result: ScoreResult | None


def result_of(rubric: Rubric, scores: Mapping[str, ScoreValue]) -> ScoreResult | None:
    """The scoring result of recorded scores under the rubric (None when nothing is scored)."""
    known = rubric.known(scores)
    return scoring.score(rubric, known) if known else None


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


@dataclass(frozen=True)
class FinalChoice:
    """The scores of a merge, where they came from, and the totals recorded with them.

    `scores` is None when the version has no scores at all; the totals are those the ledger
    recorded (the approval's, or the automatic score's), None for reviewer scores.
    """

    gate: FinalGate
    scores: Scores | None = None
    source: str | None = None
    override_reason: str | None = None
    weighted_total: float | None = None
    normalized: float | None = None
    verdict: str | None = None


def final_choice(job: JobState, version: int) -> FinalChoice:
    """The approval's scores, else the reviewers', else the automatic ones, of `version`."""
    approval = job.approvals.get(version)
    if approval is not None:
        return FinalChoice(
            gate=approval_gate(approval),
            scores=approval.scores,
            source="reviewer",
            override_reason=approval.override.reason if approval.override else None,
            weighted_total=approval.weighted_total,
            normalized=approval.normalized,
            verdict=approval.verdict,
        )
    reviewer = job.reviewer_scores.get(version)
    if reviewer:
        return FinalChoice(gate="bypassed", scores=reviewer, source="reviewer")
    auto = job.auto.get(version)
    if auto is not None:
        return FinalChoice(
            gate="bypassed",
            scores=auto.scores,
            source=auto.source,
            weighted_total=auto.weighted_total,
            verdict=auto.verdict,
        )
    return FinalChoice(gate="bypassed")


def approval_gate(approval: Approval) -> FinalGate:
    """`overridden`, `passed`, or `bypassed` for a failing approval without an override."""
    if approval.override is not None:
        return "overridden"
    return "passed" if approval.verdict == "pass" else "bypassed"
