"""Who scored what, what review changed, and whether rubric_quality follows ratings (pure).

- Latest scores: each version's latest score per criterion and source. Sources are `heuristic`
  (automatic evidence checks, ledger source `auto`), `judge` (the LLM judge) and `reviewer`. An
  automatic event may carry both: its `evidence` entries of type `criterion` name each
  criterion's own source, and the event's `source` covers the rest. A later score replaces an
  earlier one of the same source on the same version; a null (not applicable) removes it.
  Booleans map to the ends of the recorded scale (0 and 1 without one).
- Distribution: per criterion and source, how many versions got each whole-point score.
- Per job (from the fold): FIRST_SUBMISSION and FINAL_APPROVAL normalized (complete moments
  only), the change between them, the number of versions, the revisions requested, and the
  hours from the first event to the final approval.
- Weights (evidence for `reputation.weights`): per completed job with a rubric_quality and at
  least one counted rating, the trust-weighted rating (Σ wᵣ·(rating − 1)/4 / Σ wᵣ, the
  rating_score formula on one job). Spearman's ρ between the two over those jobs, with a 95%
  bootstrap interval, and how many jobs there are against Agora's threshold of about 50
  completed jobs before weights are revisited.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from rubricate.bot.delivery import dismissal
from rubricate.ledger.event import Event, criterion_source, rfc3339
from rubricate.ledger.fold import JobFacts, JobSummary, event_order
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.report.memo import RESAMPLES, SEED, Estimate, Memo, numpy_unusable

SOURCES = ("heuristic", "judge", "reviewer")
_LEDGER_SOURCE = {"auto": "heuristic", "judge": "judge", "reviewer": "reviewer"}
_SCORING = frozenset({"first_submission", "review_scored", "approved", "final_approval"})


class Scored(NamedTuple):
    """One criterion's latest score from one source on one version of one job."""

    repo: str
    pr: int
    version: int
    criterion: str
    source: str
    value: float
    scale: tuple[float, float] | None
    """The ends of the rubric's scale, when the event records them."""


VersionKey = tuple[str, int, int, str]
"""`(repo, pr, version, criterion)`."""


def latest_scores(events: Iterable[Event]) -> dict[VersionKey, dict[str, Scored]]:
    """For each version and criterion, the latest score of each source."""
    found: dict[VersionKey, dict[str, Scored]] = defaultdict(dict)
    scoring = [e for e in events if e.kind in _SCORING and e.scores]
    for event in sorted(scoring, key=event_order):
        ref = event.rubric.scale if event.rubric is not None else None
        scale = None if ref is None else (ref.min, ref.max)
        same = None if event.evidence else _LEDGER_SOURCE.get(event.source or "auto")
        for criterion, value in (event.scores or {}).items():
            source = same or _LEDGER_SOURCE.get(criterion_source(event, criterion))
            if source is None:
                continue
            key = (event.repo, event.pr, event.version, criterion)
            if value is None:
                found[key].pop(source, None)
                continue
            number = value if type(value) is float else _number(value, scale)
            found[key][source] = Scored(*key, source, number, scale)
    return found


def _number(value: float | bool, scale: tuple[float, float] | None) -> float:
    if isinstance(value, bool):
        low, high = scale or (0.0, 1.0)
        return high if value else low
    return float(value)


def distributions(counts: Mapping[tuple[str, str, int], int]) -> dict[str, Any]:
    """`{criterion: {source: {score: count}}}`, scores as whole points in text, from how many
    versions got each `(criterion, source, whole-point score)` (`tallies.Tally.scores`)."""
    found: dict[str, dict[str, dict[int, int]]] = defaultdict(lambda: defaultdict(dict))
    for (criterion, source, whole), count in counts.items():
        found[criterion][source][whole] = count
    return {
        criterion: {
            source: {str(k): v for k, v in sorted(found[criterion][source].items())}
            for source in SOURCES
        }
        for criterion in sorted(found)
    }


HOUR = 3600.0


def job_row(job: JobSummary) -> dict[str, Any]:
    """A job's row: moments, change, versions, revisions and time to approval."""
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
        "revisions": sum(1 for e in job.events if _revision(e)),
        "hours_to_approval": hours,
        "gate": job.gate,
    }


def _revision(event: Event) -> bool:
    """A revision a reviewer requested: a `revision_requested` that is not a review's
    dismissal (which withdraws an approval; the author was asked for nothing)."""
    return event.kind == "revision_requested" and not dismissal(event.delivery)


THRESHOLD_JOBS = 50
MIN_JOBS = 3
MAX_GROWTH_POINTS = 60


def weights_section(
    facts: Iterable[JobFacts],
    config: ReputationConfig,
    *,
    seed: int = SEED,
    memo: Memo | None = None,
) -> dict[str, Any]:
    """Spearman's ρ between rubric_quality and the trust-weighted rating, and the job count
    (`memo`: the estimates the last report kept, taken when drawn from the same numbers)."""
    jobs = sorted(
        (j for j in facts if j.state == "completed" and j.rubric_quality is not None),
        key=lambda j: (j.closed_at or j.last_at, j.repo, j.pr),
    )
    ratings_of: dict[tuple[tuple[str, int], ...], float | None] = {}  # most jobs share a few
    for job in jobs:
        if job.ratings not in ratings_of:
            ratings_of[job.ratings] = _job_rating(job, config)
    rated = [(j, ratings_of[j.ratings]) for j in jobs]
    kept = [(j, r) for j, r in rated if r is not None]
    quality = [round(j.rubric_quality or 0.0, 6) for j, _ in kept]
    ratings = [round(r or 0.0, 6) for _, r in kept]
    estimate = _estimate(quality, ratings, seed, memo or Memo())
    return {
        "threshold_jobs": THRESHOLD_JOBS,
        "jobs": len(kept),
        "reached": len(kept) >= THRESHOLD_JOBS,
        "spearman": estimate.value,
        "spearman_low": estimate.low,
        "spearman_high": estimate.high,
        "seed": seed,
        "resamples": RESAMPLES,
        "weights": config.weights.model_dump(),
        "by_rating": _by_rating(quality, ratings),
        "growth": _growth([j for j, _ in kept]),
    }


def _estimate(quality: list[float], ratings: list[float], seed: int, memo: Memo) -> Estimate:
    """`spearman_estimate`, from the memo when it holds the one of these numbers."""

    def draw() -> list[float | None]:
        # numpy (through `stats`) only now that an estimate is drawn: a kept one needs none
        try:
            from rubricate.report.stats import spearman_estimate
        except ImportError as exc:
            raise numpy_unusable(exc) from None

        drawn = spearman_estimate(quality, ratings, seed=seed)
        return [drawn.value, drawn.low, drawn.high]

    value, low, high = memo.recall(["spearman", RESAMPLES, seed, quality, ratings], draw)
    return Estimate(value, low, high)


def _job_rating(job: JobFacts, config: ReputationConfig) -> float | None:
    numerator = denominator = 0.0
    for role, rating in job.ratings:
        weight = config.trust.for_role(role)
        numerator += weight * (rating - 1) / 4
        denominator += weight
    return numerator / denominator if denominator else None


def _by_rating(quality: list[float], ratings: list[float]) -> dict[str, dict[str, float]]:
    """Mean rubric_quality of the jobs at each (rounded) star rating."""
    stars = [1 + round(r * 4) for r in ratings]
    counts = Counter(stars)
    sums: dict[int, float] = dict.fromkeys(counts, 0.0)
    for star, value in zip(stars, quality, strict=True):
        sums[star] += value
    return {
        str(star): {
            "jobs": counts[star],
            "mean_rubric_quality": round(sums[star] / counts[star], 6),
        }
        for star in sorted(counts)
    }


def _growth(jobs: list[JobFacts]) -> list[dict[str, Any]]:
    """How many jobs with both signals there were over time (at most 60 points)."""
    step = max(1, len(jobs) // MAX_GROWTH_POINTS)
    points = [
        {"at": rfc3339(job.closed_at or job.last_at), "jobs": index + 1}
        for index, job in enumerate(jobs)
        if (index + 1) % step == 0 or index + 1 == len(jobs)
    ]
    return points
