"""Which scores a `final_approval` carries, and its gate (pure: job state in, choice out).

The one rule, shared by the merge handler (`rubricate.bot.on_pr`) and catch-up
(`rubricate.catchup`): the merged version's approval, else its reviewer scores, else its
automatic scores. The gate is `passed` when the approval passes, `overridden` when it was
overridden, and `bypassed` otherwise (a failing approval without an override, or no approval).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rubricate.bot.jobstate import Approval, JobState, Scores
    from rubricate.ledger.event import Gate


@dataclass(frozen=True)
class FinalChoice:
    """The scores of a merge, where they came from, and the totals recorded with them.

    `scores` is None when the version has no scores at all; the totals are those the ledger
    recorded (the approval's, or the automatic score's), None for reviewer scores.
    """

    gate: Gate
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


def approval_gate(approval: Approval) -> Gate:
    """`overridden`, `passed`, or `bypassed` for a failing approval without an override."""
    if approval.override is not None:
        return "overridden"
    return "passed" if approval.verdict == "pass" else "bypassed"
