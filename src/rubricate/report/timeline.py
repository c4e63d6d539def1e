"""Each author's reputation over time, from the same fold as `reputation.json` (pure).

A series has one point as of each completed job (the time of its `final_approval`) and a last
point as of the author's newest event, when that is later. One pass over the author's events in
fold order (`at`, ties by id) keeps the author's running state: each job's facts as of the point
(the job's own fold over its events so far, or its whole fold once every event is in) and their
terms, which the ledger's own `terms_entry` adds up as `reputation.json` does. So every point is
what `reputation.json` would say for the ledger up to that time, and the last one equals it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from rubricate.config import ReputationConfig
from rubricate.ledger.codec import bulk
from rubricate.ledger.event import Event, rfc3339
from rubricate.ledger.fold import JobFacts, event_order, fold_job
from rubricate.ledger.reputation import JobTerms, job_terms, terms_entry

AuthorKey = tuple[str, str]
"""`(repo, author)`."""
JobKey = tuple[str, int]


@bulk
def reputation_series(
    events: Iterable[Event],
    config: ReputationConfig,
    folded: Mapping[JobKey, JobFacts] | None = None,
) -> dict[AuthorKey, list[dict[str, Any]]]:
    """Every `(repo, author)`'s points, oldest first; keys sorted.

    `folded`: the facts of whole jobs when the caller has folded them already.
    """
    by_job: dict[JobKey, list[Event]] = defaultdict(list)
    for event in events:
        by_job[(event.repo, event.pr)].append(event)
    by_author: dict[AuthorKey, list[Event]] = defaultdict(list)
    for key, job_events in by_job.items():
        job_events.sort(key=event_order)
        by_author[(key[0], job_events[0].author)].extend(job_events)
    by_repo: dict[str, dict[int, JobFacts]] = defaultdict(dict)
    for (repo, pr), facts in (folded or {}).items():
        by_repo[repo][pr] = facts
    return {
        key: author_series(by_author[key], config, by_repo[key[0]]) for key in sorted(by_author)
    }


def author_series(
    events: Sequence[Event], config: ReputationConfig, folded: Mapping[int, JobFacts] | None = None
) -> list[dict[str, Any]]:
    """One author's points from the events of all their jobs in one repo (`folded`: the facts
    of whole jobs, by `pr`, when they are known already)."""
    ordered = sorted(events, key=event_order)
    sizes = Counter(event.pr for event in ordered)
    seen: dict[int, list[Event]] = defaultdict(list)
    terms: dict[int, JobTerms] = {}
    points: list[dict[str, Any]] = []
    start = 0
    for stop, completed in _stop_indexes(ordered):
        changed = set()
        for event in ordered[start : stop + 1]:
            seen[event.pr].append(event)
            changed.add(event.pr)
        start = stop + 1
        for pr in changed:
            whole = (folded or {}).get(pr) if len(seen[pr]) == sizes[pr] else None
            facts = whole or fold_job(seen[pr]).facts
            terms[pr] = job_terms(facts, config)
        entry = terms_entry([terms[pr] for pr in sorted(terms)], config)
        points.append({"at": rfc3339(ordered[stop].at), "pr": completed, **entry})
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


def since(points: Sequence[dict[str, Any]], cutoff: datetime | None) -> list[dict[str, Any]]:
    """The points at or after `cutoff`, always keeping the last one."""
    if cutoff is None or not points:
        return list(points)
    stamp = rfc3339(cutoff) or ""
    kept = [p for p in points[:-1] if str(p["at"]) >= stamp]
    return [*kept, points[-1]]
