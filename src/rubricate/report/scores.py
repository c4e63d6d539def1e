"""Score distributions and what review changed, per job (pure).

- Distribution: per criterion and source, how many versions got each whole-point score.
- Per job (from the fold): FIRST_SUBMISSION and FINAL_APPROVAL normalized (complete moments
  only), the change between them, the number of versions, the revisions requested, and the
  hours from the first event to the final approval.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from rubricate.ledger.fold import JobSummary
from rubricate.report.pairs import SOURCES, Scored, VersionKey

HOUR = 3600.0
APPROVAL_BUCKETS = ((1, "< 1 h"), (6, "1–6 h"), (24, "6–24 h"), (72, "1–3 d"), (168, "3–7 d"))
LAST_BUCKET = "> 7 d"


def distributions(scores: Mapping[VersionKey, Mapping[str, Scored]]) -> dict[str, Any]:
    """`{criterion: {source: {score: count}}}`, scores as whole points in text."""
    counts: dict[str, dict[str, Counter[int]]] = defaultdict(lambda: defaultdict(Counter))
    for (_, _, _, criterion), by_source in scores.items():
        for source, scored in by_source.items():
            counts[criterion][source][math.floor(scored.value + 0.5)] += 1
    return {
        criterion: {
            source: {str(k): v for k, v in sorted(counts[criterion][source].items())}
            for source in SOURCES
        }
        for criterion in sorted(counts)
    }


def job_rows(jobs: Iterable[JobSummary]) -> list[dict[str, Any]]:
    """One row per job: moments, change, versions, revisions and time to approval."""
    return [_row(job) for job in jobs]


def _row(job: JobSummary) -> dict[str, Any]:
    facts = job.facts
    first = job.first.normalized if job.first is not None and job.first.complete else None
    final = job.final.normalized if job.final is not None and job.final.complete else None
    hours = None
    if facts.closed_at is not None:
        hours = round((facts.closed_at - facts.opened_at).total_seconds() / HOUR, 3)
    return {
        "repo": facts.repo,
        "pr": facts.pr,
        "author": facts.author,
        "state": facts.state,
        "first": first,
        "final": final,
        "change": None if first is None or final is None else round(final - first, 6),
        "rubric_quality": facts.rubric_quality,
        "versions": max((e.version for e in job.events), default=1),
        "revisions": sum(1 for e in job.events if e.kind == "revision_requested"),
        "hours_to_approval": hours,
        "gate": job.gate,
    }


def summary(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Means and histograms over the job rows."""
    listed = list(rows)
    changes = [r["change"] for r in listed if r["change"] is not None]
    firsts = [r["first"] for r in listed if r["change"] is not None]
    finals = [r["final"] for r in listed if r["change"] is not None]
    hours = [r["hours_to_approval"] for r in listed if r["hours_to_approval"] is not None]
    return {
        "jobs": len(listed),
        "with_both_moments": len(changes),
        "mean_first": _mean(firsts),
        "mean_final": _mean(finals),
        "mean_change": _mean(changes),
        "improved": sum(1 for c in changes if c > 1e-9),
        "change_histogram": _change_histogram(changes),
        "revisions_histogram": _count_histogram(r["revisions"] for r in listed),
        "versions_histogram": _count_histogram(r["versions"] for r in listed),
        "median_hours_to_approval": _median(hours),
        "approval_histogram": _approval_histogram(hours),
    }


def _change_histogram(changes: list[float]) -> dict[str, int]:
    """Counts of the change in tenths, from −1.0 to +1.0."""
    counts = Counter(max(-10, min(10, math.floor(c * 10 + 0.5))) for c in changes)
    return {f"{k / 10:+.1f}": counts[k] for k in range(-10, 11) if counts[k] or -3 <= k <= 3}


def _count_histogram(values: Iterable[int]) -> dict[str, int]:
    counts = Counter(min(v, 5) for v in values)
    return {("5+" if k == 5 else str(k)): counts[k] for k in sorted(counts)}


def _approval_histogram(hours: list[float]) -> dict[str, int]:
    counts = dict.fromkeys([label for _, label in APPROVAL_BUCKETS] + [LAST_BUCKET], 0)
    for value in hours:
        label = next((lb for limit, lb in APPROVAL_BUCKETS if value < limit), LAST_BUCKET)
        counts[label] += 1
    return counts


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 6) if values else None


def _median(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2
