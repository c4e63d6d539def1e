"""Evidence for `reputation.weights`: does rubric_quality follow the reviewers' ratings? (pure)

Per completed job with a rubric_quality and at least one counted rating: the trust-weighted
rating (Σ wᵣ·(rating − 1)/4 / Σ wᵣ, the rating_score formula on one job). Spearman's ρ between
the two over those jobs, with a 95% bootstrap interval, and how many jobs there are against
Agora's threshold of about 50 completed jobs before weights are revisited.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from rubricate.config import ReputationConfig
from rubricate.ledger.event import rfc3339
from rubricate.ledger.fold import JobFacts
from rubricate.report.stats import RESAMPLES, SEED, spearman_estimate

THRESHOLD_JOBS = 50
MIN_JOBS = 3
MAX_GROWTH_POINTS = 60


def weights_section(
    facts: Iterable[JobFacts], config: ReputationConfig, *, seed: int = SEED
) -> dict[str, Any]:
    """Spearman's ρ between rubric_quality and the trust-weighted rating, and the job count."""
    jobs = sorted(
        (j for j in facts if j.state == "completed" and j.rubric_quality is not None),
        key=lambda j: (j.closed_at or j.last_at, j.repo, j.pr),
    )
    rated = [(j, _job_rating(j, config)) for j in jobs]
    kept = [(j, r) for j, r in rated if r is not None]
    quality = [round(j.rubric_quality or 0.0, 6) for j, _ in kept]
    ratings = [round(r or 0.0, 6) for _, r in kept]
    estimate = spearman_estimate(quality, ratings, seed=seed)
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
