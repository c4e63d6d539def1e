"""Each author's reputation over time, from the same fold as `reputation.json` (pure).

A series has one point as of each completed job (the time of its `final_approval`) and a last
point as of the author's newest event, when that is later. A point folds every event of the
author's jobs up to its time (`at` order, ties by id, as the fold orders them) and computes the
author's `reputation.json` entry from those jobs with the same code, so the last point equals
`reputation.json` exactly. Only the jobs that changed since the previous point are folded again.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from rubricate.config import ReputationConfig
from rubricate.ledger.codec import bulk
from rubricate.ledger.event import Event, rfc3339
from rubricate.ledger.fold import JobFacts, event_order, fold_job
from rubricate.ledger.reputation import author_entry

AuthorKey = tuple[str, str]
"""`(repo, author)`."""


@bulk
def reputation_series(
    events: Iterable[Event], config: ReputationConfig
) -> dict[AuthorKey, list[dict[str, Any]]]:
    """Every `(repo, author)`'s points, oldest first; keys sorted."""
    by_job: dict[tuple[str, int], list[Event]] = defaultdict(list)
    for event in events:
        by_job[(event.repo, event.pr)].append(event)
    by_author: dict[AuthorKey, list[Event]] = defaultdict(list)
    for key, job_events in by_job.items():
        job_events.sort(key=event_order)
        by_author[(key[0], job_events[0].author)].extend(job_events)
    return {key: author_series(by_author[key], config) for key in sorted(by_author)}


def author_series(events: Sequence[Event], config: ReputationConfig) -> list[dict[str, Any]]:
    """One author's points from the events of all their jobs in one repo."""
    ordered = sorted(events, key=event_order)
    stops = _stop_indexes(ordered)
    seen: dict[int, list[Event]] = defaultdict(list)
    facts: dict[int, JobFacts] = {}
    dirty: set[int] = set()
    points: list[dict[str, Any]] = []
    start = 0
    for stop, completed in stops:
        for event in ordered[start : stop + 1]:
            seen[event.pr].append(event)
            dirty.add(event.pr)
        start = stop + 1
        for pr in dirty:
            facts[pr] = fold_job(seen[pr]).facts
        dirty.clear()
        points.append(_point(ordered[stop].at, completed, facts, config))
    return points


def _stop_indexes(ordered: Sequence[Event]) -> list[tuple[int, int | None]]:
    """Where points are taken (after the last event at each completion time, and at the end),
    with the pull request completed there."""
    stops: list[tuple[int, int | None]] = []
    for index, event in enumerate(ordered):
        if event.kind != "final_approval":
            continue
        last = index
        while last + 1 < len(ordered) and ordered[last + 1].at == event.at:
            last += 1
        if not stops or stops[-1][0] != last:
            stops.append((last, event.pr))
    if ordered and (not stops or stops[-1][0] != len(ordered) - 1):
        stops.append((len(ordered) - 1, None))
    return stops


def _point(
    at: datetime, completed: int | None, facts: Mapping[int, JobFacts], config: ReputationConfig
) -> dict[str, Any]:
    entry = author_entry([facts[pr] for pr in sorted(facts)], config)
    return {"at": rfc3339(at), "pr": completed, **entry}


def since(points: Sequence[dict[str, Any]], cutoff: datetime | None) -> list[dict[str, Any]]:
    """The points at or after `cutoff`, always keeping the last one."""
    if cutoff is None or not points:
        return list(points)
    stamp = rfc3339(cutoff) or ""
    kept = [p for p in points[:-1] if str(p["at"]) >= stamp]
    return [*kept, points[-1]]
