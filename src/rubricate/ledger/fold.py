"""Fold ledger events into one summary per job (pure: events in, data out).

The fold is self-contained: it needs nothing but the events.
- A job is `(repo, pr)`. Its events are taken in `at` order, ties broken by id.
- FIRST_SUBMISSION: the job's `first_submission` events for version 1 are merged criterion by
  criterion; a later value replaces an earlier one (so a reviewer's v1 score overrides the
  automatic one). A null never erases an earlier value.
- FINAL_APPROVAL: the scores of the job's `final_approval` event (the latest one, if several).
- A moment is complete when every non-nullable criterion of its recorded rubric (the newest
  event's `rubric`) has a non-null value. Its weighted total and normalized value are recomputed
  from the merged scores with the recorded weights and scale (binary values map to the scale's
  ends); normalized is clamped to [0, 1].
- When the recorded rubric is only `{id, version}` (hand-written ledgers), the newest event's own
  `verdict != "incomplete"` decides completeness and its own `normalized` is used, clamped.
- rubric_quality = 0.7·first_norm + 0.3·final_norm, only when both moments are complete.
- State: `completed` when the job has a `final_approval`; else `abandoned` when it has an
  `abandoned` event; else `open`.
- The job's author is the `author` of its earliest event.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from operator import attrgetter
from typing import Literal

from rubricate.ledger.event import CriterionRef, Event, RubricRef, ScaleRef
from rubricate.ledger.perf import bulk
from rubricate.rubric.model import ScoreValue
from rubricate.rubric.scoring import clamp01

JobState = Literal["open", "completed", "abandoned"]
FIRST_WEIGHT = 0.7
FINAL_WEIGHT = 0.3


@dataclass(frozen=True)
class Moment:
    """One scoring moment of a job: merged scores and what they add up to."""

    scores: Mapping[str, ScoreValue]
    rubric: RubricRef | None
    complete: bool
    weighted_total: float | None
    normalized: float | None
    events: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        """The JSON shape used in `jobs/<pr>.json`."""
        return {
            "scores": dict(sorted(self.scores.items())),
            "rubric": None if self.rubric is None else self.rubric.model_dump(exclude_none=True),
            "complete": self.complete,
            "weighted_total": self.weighted_total,
            "normalized": self.normalized,
            "events": list(self.events),
        }


@dataclass(frozen=True)
class JobFacts:
    """What reputation needs of one job; small enough to keep for every job."""

    repo: str
    pr: int
    author: str
    state: JobState
    opened_at: datetime
    closed_at: datetime | None
    deadline: datetime | None
    disputed: bool
    ratings: tuple[tuple[str, int], ...]
    rubric_quality: float | None
    events: int


@dataclass(frozen=True)
class JobSummary:
    """A folded job: its events in order, both scoring moments and the facts reputation uses."""

    facts: JobFacts
    events: tuple[Event, ...]
    first: Moment | None
    final: Moment | None
    gate: str | None

    @property
    def key(self) -> tuple[str, int]:
        """The job's `(repo, pr)`."""
        return (self.facts.repo, self.facts.pr)


def event_order(event: Event) -> tuple[datetime, str]:
    """The fold's order: `at`, then id."""
    return (event.at, event.id)


_ORDER = attrgetter("at", "id")


@bulk
def fold_jobs(events: Iterable[Event]) -> dict[tuple[str, int], JobSummary]:
    """Group events by job and fold each; keys are sorted `(repo, pr)`."""
    grouped: dict[tuple[str, int], list[Event]] = defaultdict(list)
    for event in events:
        grouped[(event.repo, event.pr)].append(event)
    return {key: fold_job(grouped[key]) for key in sorted(grouped)}


def fold_job(events: Iterable[Event]) -> JobSummary:
    """Fold the events of one job (any order)."""
    ordered = tuple(sorted(events, key=_ORDER))
    if not ordered:
        raise ValueError("a job needs at least one event")
    by_kind: dict[str, list[Event]] = defaultdict(list)
    for event in ordered:
        by_kind[event.kind].append(event)
    first = merge_moment(e for e in by_kind["first_submission"] if e.version == 1)
    approvals = by_kind["final_approval"]
    final = merge_moment(approvals[-1:])
    facts = _facts(ordered, by_kind, rubric_quality(first, final))
    gate = approvals[-1].gate if approvals else None
    return JobSummary(facts, ordered, first, final, gate)


def rubric_quality(first: Moment | None, final: Moment | None) -> float | None:
    """0.7·first_norm + 0.3·final_norm when both moments are complete."""
    if first is None or final is None or not (first.complete and final.complete):
        return None
    if first.normalized is None or final.normalized is None:
        return None
    return FIRST_WEIGHT * first.normalized + FINAL_WEIGHT * final.normalized


def merge_moment(events: Iterable[Event]) -> Moment | None:
    """Merge ordered scoring events criterion by criterion; None when there are none."""
    merged: dict[str, ScoreValue] = {}
    ids: list[str] = []
    rubric: RubricRef | None = None
    last: Event | None = None
    for event in events:
        last = event
        ids.append(event.id)
        rubric = event.rubric or rubric
        for criterion, value in (event.scores or {}).items():
            if value is not None or criterion not in merged:
                merged[criterion] = value
    if last is None:
        return None
    if rubric is not None and rubric.scale is not None and rubric.criteria is not None:
        return _recomputed(merged, rubric, rubric.scale, rubric.criteria, tuple(ids))
    return _as_recorded(merged, rubric, last, tuple(ids))


def _recomputed(
    merged: dict[str, ScoreValue],
    rubric: RubricRef,
    scale: ScaleRef,
    criteria: Mapping[str, CriterionRef],
    ids: tuple[str, ...],
) -> Moment:
    low, high = scale.min, scale.max
    numerator = denominator = 0.0
    complete = True
    for criterion, ref in criteria.items():
        value = merged.get(criterion)
        if value is None:
            complete = complete and ref.nullable
            continue
        number = (high if value else low) if isinstance(value, bool) else float(value)
        numerator += ref.weight * number
        denominator += ref.weight
    total = numerator / denominator if denominator else None
    normalized = None
    if total is not None and high != low:
        normalized = clamp01((total - low) / (high - low))
    complete = complete and normalized is not None
    return Moment(merged, rubric, complete, total, normalized, ids)


def _as_recorded(
    merged: dict[str, ScoreValue], rubric: RubricRef | None, last: Event, ids: tuple[str, ...]
) -> Moment:
    normalized = None if last.normalized is None else clamp01(last.normalized)
    complete = last.verdict not in (None, "incomplete") and normalized is not None
    return Moment(merged, rubric, complete, last.weighted_total, normalized, ids)


def _facts(
    ordered: tuple[Event, ...], by_kind: Mapping[str, list[Event]], quality: float | None
) -> JobFacts:
    head = ordered[0]
    approvals = by_kind["final_approval"]
    state: JobState = "open"
    if approvals:
        state = "completed"
    elif by_kind.get("abandoned"):
        state = "abandoned"
    closing = approvals[-1] if approvals else None
    ratings = tuple((e.actor_role, e.rating) for e in by_kind.get("rated", ()) if e.rating)
    return JobFacts(
        repo=head.repo,
        pr=head.pr,
        author=head.author,
        state=state,
        opened_at=head.at,
        closed_at=None if closing is None else closing.at,
        deadline=None if closing is None else closing.deadline,
        disputed=bool(by_kind.get("disputed")),
        ratings=ratings,
        rubric_quality=quality,
        events=len(ordered),
    )
