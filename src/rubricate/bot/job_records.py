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
    """One version of the PR: a distinct git tree, with every head commit seen for it.

    `at` is when the version was first recorded; `since` when it last became the current
    version (a head that returns to this tree makes it current again).
    """

    number: int
    head_sha: str | None
    tree_sha: str | None
    heads: tuple[str, ...]
    at: datetime
    since: datetime


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
