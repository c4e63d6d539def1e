"""The records a folded job state is made of: versions, approvals, scores, feedback (pure: data).

`rubricate.bot.jobstate` folds ledger events into these; it re-exports them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from rubricate.ledger.event import Event
from rubricate.rubric.model import ScoreValue

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
