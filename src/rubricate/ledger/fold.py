"""Fold ledger events into one summary per job (pure: events in, data out).

The fold is self-contained: it needs nothing but the events. `FOLD_VERSION` names this meaning
(and the derived files' format); a fold cache written under another version is never used.
- A job is `(repo, pr)`. Its events are taken in `at` order, ties broken by id.
- FIRST_SUBMISSION: the job's `first_submission` events for version 1 are merged criterion by
  criterion; a later value replaces an earlier one (so a reviewer's v1 score overrides the
  automatic one). In `scores`, an absent criterion is no information and keeps the earlier
  value; an explicit null means "not applicable" (valid only on a nullable criterion) and
  replaces an earlier value.
- FINAL_APPROVAL: the scores of the job's `final_approval` event (the latest one, if several).
- A moment is complete when every non-nullable criterion of its recorded rubric (the newest
  event's `rubric`) has a non-null value. Its weighted total and normalized value are recomputed
  from the merged scores with the recorded weights and scale (binary values map to the scale's
  ends; null criteria are left out); normalized is clamped to [0, 1].
- When the recorded rubric is only `{id, version}` (hand-written ledgers), the newest event's own
  `verdict != "incomplete"` decides completeness and its own `normalized` is used, clamped.
- rubric_quality = 0.7·first_norm + 0.3·final_norm, only when both moments are complete.
- State: `completed` when the job has a `final_approval`. Else `abandoned` when its latest
  `abandoned` event is not followed by a lifecycle or scoring event (`first_submission`,
  `review_scored`, `revision_requested`, `approved`): such a later event means the pull request
  was reopened, and the job is `open` again. Else `open`.
- Ratings: only the latest `rated` event of each rater (`actor`) counts for a job, so a rater
  who rates ten times is counted once, with their last rating.
- The job's author is the `author` of its earliest event.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from operator import attrgetter
from typing import TYPE_CHECKING, Literal, TypedDict

from rubricate.numbers import clamp01

if TYPE_CHECKING:
    from rubricate.ledger.event import CriterionRef, Event, RubricRef, ScaleRef
    from rubricate.rubric.model import ScoreValue

JobStatus = Literal["open", "completed", "abandoned"]
FOLD_VERSION = 2
"""Bump whenever the fold's meaning or a derived file's format changes."""
REOPENING = frozenset({"first_submission", "review_scored", "revision_requested", "approved"})
"""Kinds that, after an `abandoned` event, mean the pull request was reopened."""
SHAPING = frozenset({"first_submission", "final_approval"})
"""Kinds of events that shape a completed job's facts beyond what its other events add (as does
any event that records a rubric): see `shapes_facts`."""
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


@dataclass(frozen=True)
class JobFacts:
    """What reputation needs of one job; small enough to keep for every job."""

    repo: str
    pr: int
    author: str
    state: JobStatus
    opened_at: datetime
    closed_at: datetime | None
    last_at: datetime
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


def fold_jobs(events: Iterable[Event]) -> dict[tuple[str, int], JobSummary]:
    """Group events by job and fold each; keys are sorted `(repo, pr)`."""
    grouped: dict[tuple[str, int], list[Event]] = defaultdict(list)
    for event in events:
        grouped[(event.repo, event.pr)].append(event)
    return {key: fold_job(grouped[key]) for key in sorted(grouped)}


def counts_as_first_submission(event: Event) -> bool:
    """Whether `event` is part of its job's FIRST_SUBMISSION: a `first_submission` of version 1.
    Those events merge criterion by criterion, a later value (null included) replacing an
    earlier one, in the fold (`merge_moment`) and in the bot's job state alike."""
    return event.kind == "first_submission" and event.version == 1


def fold_job(events: Iterable[Event]) -> JobSummary:
    """Fold the events of one job (any order)."""
    ordered = tuple(sorted(events, key=_ORDER))
    if not ordered:
        raise ValueError("a job needs at least one event")
    by_kind: dict[str, list[Event]] = defaultdict(list)
    for event in ordered:
        by_kind[event.kind].append(event)
    first = merge_moment(filter(counts_as_first_submission, by_kind["first_submission"]), ordered)
    approvals = by_kind["final_approval"]
    final = merge_moment(approvals[-1:], ordered)
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


def merge_moment(events: Iterable[Event], job: Iterable[Event] = ()) -> Moment | None:
    """Merge ordered scoring events criterion by criterion; None when there are none.

    `job` holds all the job's events: for a rubric recorded as `{id, version}` only, a criterion
    another event of the job scored under it and this moment lacks makes the moment incomplete.
    """
    merged: dict[str, ScoreValue] = {}
    ids: list[str] = []
    rubric: RubricRef | None = None
    last: Event | None = None
    for event in events:
        last = event
        ids.append(event.id)
        rubric = event.rubric or rubric
        merged.update(event.scores or {})
    if last is None:
        return None
    if rubric is not None and rubric.scale is not None and rubric.criteria is not None:
        return _recomputed(merged, rubric, rubric.scale, rubric.criteria, tuple(ids))
    return _as_recorded(merged, rubric, last, tuple(ids), _criteria_seen(job, rubric))


def _criteria_seen(job: Iterable[Event], rubric: RubricRef | None) -> frozenset[str]:
    """Every criterion the job's events scored under the same rubric id and version."""
    if rubric is None:
        return frozenset()
    same = (
        e
        for e in job
        if e.rubric and (e.rubric.id, e.rubric.version) == (rubric.id, rubric.version)
    )
    return frozenset(criterion for e in same for criterion in e.scores or {})


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
    merged: dict[str, ScoreValue],
    rubric: RubricRef | None,
    last: Event,
    ids: tuple[str, ...],
    seen: frozenset[str],
) -> Moment:
    """A moment without the rubric's criteria: a `fail` may be decided with scores missing, so it
    is complete only when no criterion scored elsewhere in the job is missing (a pass always is)."""
    normalized = None if last.normalized is None else clamp01(last.normalized)
    lacking = last.verdict == "fail" and not seen <= merged.keys()
    complete = last.verdict not in (None, "incomplete") and normalized is not None and not lacking
    return Moment(merged, rubric, complete, last.weighted_total, normalized, ids)


def _facts(
    ordered: tuple[Event, ...], by_kind: Mapping[str, list[Event]], quality: float | None
) -> JobFacts:
    head = ordered[0]
    approvals = by_kind["final_approval"]
    closing = approvals[-1] if approvals else None
    return JobFacts(
        repo=head.repo,
        pr=head.pr,
        author=head.author,
        state=lifecycle_state(ordered),
        opened_at=head.at,
        closed_at=None if closing is None else closing.at,
        last_at=ordered[-1].at,
        deadline=None if closing is None else closing.deadline,
        rubric_quality=quality,
        events=len(ordered),
        **_taken_from_any(ordered),
    )


def shapes_facts(event: Event) -> bool:
    """Whether an event shapes its completed job's facts (`_facts`): a scoring moment, the
    completion, the rubric a moment is checked against (the job's first event, its author and
    opening, is the first of any prefix). Once a job's last such event is in, the others add
    only what `facts_so_far` takes from them."""
    return event.kind in SHAPING or event.rubric is not None


def facts_so_far(whole: JobFacts, so_far: Sequence[Event]) -> JobFacts:
    """A completed job's facts as of its events `so_far` (a first part of them, in fold order,
    holding every one that `shapes_facts`), from its `whole` facts: what
    `fold_job(so_far).facts` gives, without folding its moments again."""
    return replace(whole, last_at=so_far[-1].at, events=len(so_far), **_taken_from_any(so_far))


class _FromAnyEvent(TypedDict):
    disputed: bool
    ratings: tuple[tuple[str, int], ...]


def _taken_from_any(ordered: Sequence[Event]) -> _FromAnyEvent:
    """The facts that events which do not shape a job's facts (`shapes_facts`) still change:
    whether it was disputed, and each rater's latest rating."""
    return {
        "disputed": any(event.kind == "disputed" for event in ordered),
        "ratings": latest_ratings([event for event in ordered if event.kind == "rated"]),
    }


def job_lifecycle(events: Iterable[Event]) -> JobStatus:
    """A job's lifecycle from its events in any order: the one rule every view derives from."""
    return lifecycle_state(sorted(events, key=_ORDER))


def lifecycle_state(ordered: Sequence[Event]) -> JobStatus:
    """`completed`, `abandoned` (not reopened since) or `open`, from events in fold order."""
    state: JobStatus = "open"
    for event in ordered:
        if event.kind == "final_approval":
            return "completed"
        if event.kind == "abandoned":
            state = "abandoned"
        elif event.kind in REOPENING:
            state = "open"
    return state


def latest_ratings(rated: Iterable[Event]) -> tuple[tuple[str, int], ...]:
    """`(actor_role, rating)` of each rater's latest `rated` event, in fold order."""
    latest = {event.actor: event for event in rated if event.rating}
    kept = sorted(latest.values(), key=_ORDER)
    return tuple((event.actor_role, event.rating) for event in kept if event.rating)
