"""A job's records, the merge gate they decide, and the scores a merge carries (pure).

The records a folded job state (`rubricate.bot.jobstate`) is made of: versions, approvals,
overrides, automatic scores and feedback.

The gate of an open PR is the approval of its current version (or of the version a head commit
belongs to): pending without one, success when it passes or is overridden, failure when it fails
without an override. A new version of the PR's own change has no approval yet, so the gate goes
back to pending; a head that returns to an older version gets that version's own gate.

`final_choice` is the one rule for the scores of a `final_approval`, shared by the merge handler
(`rubricate.bot.on_pr`) and catch-up (`rubricate.catchup`): the merged version's approval, else
its reviewer scores, else its automatic scores. Its gate is `passed` when the approval passes,
`overridden` when it was overridden, and `bypassed` otherwise (a failing approval without an
override, or no approval).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from rubricate.bot.effects import SetStatus, StatusState
from rubricate.bot.markdown import STATUS, number
from rubricate.rubric import scoring
from rubricate.rubric.model import ScoreResult, ScoreValue

if TYPE_CHECKING:
    from rubricate.bot.jobstate import JobState
    from rubricate.ledger.event import Event
    from rubricate.ledger.event import Gate as FinalGate
    from rubricate.rubric.model import Rubric

Scores = Mapping[str, ScoreValue]
FeedbackKind = Literal["revise", "note", "rate", "dispute"]


@dataclass(frozen=True)
class VersionInfo:
    """One version of the PR: a distinct change, with every head commit seen for it.

    `change_id` digests the PR's own change (merge base to head); versions recorded before
    it existed have only their `tree_sha`. `at` is when the version was first recorded;
    `since` when it last became the current version (a head that returns to this change makes
    it current again).
    """

    number: int
    head_sha: str | None
    tree_sha: str | None
    heads: tuple[str, ...]
    at: datetime
    since: datetime
    change_id: str | None = None

    def holds(self, tree_sha: str | None, change_id: str | None) -> bool:
        """True when a head with this tree and change is this version.

        With a known change, the change must be this version's. Without one (git was off), a
        version bound to a change is never matched by tree alone; an older version without a
        change matches by tree, as it always did.
        """
        if change_id is not None:
            return self.change_id == change_id
        return self.change_id is None and tree_sha is not None and self.tree_sha == tree_sha


@dataclass(frozen=True)
class OverrideInfo:
    """An override of a failing approval; kept and shown forever."""

    version: int
    reason: str
    actor: str
    at: datetime


@dataclass(frozen=True)
class Approval:
    """A reviewer's approval of a version with its scores, and any override of it."""

    version: int
    scores: Scores
    weighted_total: float | None
    normalized: float | None
    verdict: str
    actor: str
    at: datetime
    override: OverrideInfo | None = None


def approval_of(event: Event) -> Approval:
    """The approval an `approved` event records (without any override)."""
    return Approval(
        version=event.version,
        scores=dict(event.scores or {}),
        weighted_total=event.weighted_total,
        normalized=event.normalized,
        verdict=event.verdict or "incomplete",
        actor=event.actor,
        at=event.at,
    )


@dataclass(frozen=True)
class AutoScore:
    """The automatic (evidence and judge) score of a version, with its evidence entries."""

    version: int
    scores: Scores
    weighted_total: float | None
    verdict: str | None
    source: str
    evidence: tuple[Mapping[str, Any], ...]


@dataclass(frozen=True)
class Feedback:
    """Free text recorded for a job: a revision request, a score note, a rating or a dispute."""

    kind: FeedbackKind
    version: int
    actor: str
    at: datetime
    text: str
    rating: int | None = None


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


def status(job: JobState, rubric: Rubric, sha: str) -> SetStatus:
    """The `rubricate/approval` gate status on a head commit: the gate of its own version."""
    version = job.version_of_head(sha)
    gate = gate_of(job, rubric, version.number if version else None)
    return SetStatus(sha, gate.state, gate.description)


def _gate(state: StatusState, description: str) -> Gate:
    if len(description) > STATUS_LIMIT:
        description = description[: STATUS_LIMIT - 1] + "…"
    return Gate(state, description)


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


def gate_output(job: JobState, rubric: Rubric) -> str:
    """The `gate` job output: the final gate, `abandoned`, or the status state."""
    if job.final is not None:
        return job.final.gate or "bypassed"
    if job.abandoned:
        return "abandoned"
    return gate_of(job, rubric).state


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
