"""Agora V3 reputation per author and repo, from folded jobs (pure: data in, data out).

- completion_rate = completed / (completed + abandoned); open jobs are left out.
- timeliness_score = completed jobs closed at or before their deadline / completed jobs with a
  deadline. The deadline is the `final_approval` event's own, else `opened + sla_hours` when an
  SLA is configured.
- dispute_penalty = 1 − completed jobs with a `disputed` event / completed jobs.
- rating_score = Σ wᵣ·(rating − 1)/4 / Σ wᵣ over `rated` events of completed jobs, wᵣ by role.
- rubric_quality = the mean of the completed jobs' rubric_quality values that exist.
- reputation = Σ weight·component / Σ weight over the components with data;
  coverage = Σ weight of those components (as configured, so 1.0 with every component present
  under the default weights); coverage_share = coverage / Σ weight of all components.

Beside it, how sure it is: each component's `interval`, `provisional` (fewer than
`provisional_below` completed jobs) and `ranked` (see `rubricate.ledger.confidence`).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from rubricate.ledger.confidence import Component as Component
from rubricate.ledger.confidence import component_dict as _component_dict
from rubricate.ledger.confidence import ranked_components, ratio, undisputed
from rubricate.ledger.confidence import round_value as _round
from rubricate.ledger.deadline import deadline
from rubricate.ledger.event import SCHEMA_VERSION, Event, rfc3339
from rubricate.ledger.fold import JobFacts, JobStatus, bulk, fold_jobs

if TYPE_CHECKING:
    from rubricate.ledger.reputation_config import ReputationConfig

COMPONENTS = (
    "completion_rate",
    "timeliness_score",
    "dispute_penalty",
    "rating_score",
    "rubric_quality",
)


@dataclass(frozen=True)
class LedgerCounts:
    """What the ledger held when reputation was computed."""

    events: int = 0
    corrupt: int = 0
    duplicates: int = 0
    newest_at: datetime | None = None


@bulk
def compute_reputation(
    events: Iterable[Event], config: ReputationConfig, *, corrupt: int = 0
) -> dict[str, Any]:
    """The `reputation.json` content for these events."""
    listed = list(events)
    facts = [job.facts for job in fold_jobs(listed).values()]
    newest = max((e.at for e in listed), default=None)
    return reputation_document(facts, config, LedgerCounts(len(listed), corrupt, 0, newest))


def reputation_document(
    facts: Sequence[JobFacts], config: ReputationConfig, counts: LedgerCounts
) -> dict[str, Any]:
    """The `reputation.json` content from every job's facts (in `(repo, pr)` order)."""
    ordered = sorted(facts, key=lambda f: (f.repo, f.pr))
    by_repo: dict[str, list[JobFacts]] = defaultdict(list)
    for job in ordered:
        by_repo[job.repo].append(job)
    return {
        "schema_version": SCHEMA_VERSION,
        "generated_at": rfc3339(counts.newest_at),
        "config": config.model_dump(mode="json"),
        "ledger": {
            "events": counts.events,
            "jobs": len(ordered),
            "corrupt_lines": counts.corrupt,
            "duplicate_lines": counts.duplicates,
        },
        "repos": {repo: _repo_entry(jobs, config) for repo, jobs in by_repo.items()},
    }


@dataclass(frozen=True)
class JobTerms:
    """One job's share of its author's components: what `terms_components` adds up."""

    state: JobStatus
    on_time: bool | None
    disputed: bool
    ratings: tuple[tuple[float, float], ...]
    """`(weight·(rating − 1)/4, weight)` of each counted rating."""
    rubric_quality: float | None


def job_terms(job: JobFacts, config: ReputationConfig) -> JobTerms:
    """The job's terms under `config` (computed once per job, summed per author)."""
    ratings = []
    for role, rating in job.ratings:
        weight = config.trust.for_role(role)
        ratings.append((weight * (rating - 1) / 4, weight))
    on_time = _on_time(job, config) if job.state == "completed" else None
    return JobTerms(job.state, on_time, job.disputed, tuple(ratings), job.rubric_quality)


def terms_components(jobs: Sequence[JobTerms]) -> dict[str, Component]:
    """The five components from one author's job terms (in `pr` order)."""
    completed = [j for j in jobs if j.state == "completed"]
    closed = sum(1 for j in jobs if j.state in ("completed", "abandoned"))
    on_time = [j.on_time for j in completed if j.on_time is not None]
    return {
        "completion_rate": ratio(len(completed), closed),
        "timeliness_score": ratio(sum(on_time), len(on_time)),
        "dispute_penalty": undisputed(sum(j.disputed for j in completed), len(completed)),
        "rating_score": _rating(completed),
        "rubric_quality": _quality(completed),
    }


def combine(
    components: dict[str, Component], config: ReputationConfig
) -> tuple[float | None, float]:
    """Reputation (weights renormalized over components with data) and its coverage.

    The coverage is Σ weight of the components with data, as the weights are configured.
    """
    weights = config.weights.model_dump()
    present = [(weights[name], c.value) for name, c in components.items() if c.value is not None]
    coverage = sum(w for w, _ in present)
    if not coverage:
        return None, coverage
    return sum(w * v for w, v in present if v is not None) / coverage, coverage


def coverage_share(coverage: float, config: ReputationConfig) -> float:
    """The coverage as a share of the total weight (0.0 when every weight is 0)."""
    total = sum(config.weights.model_dump().values())
    return coverage / total if total else 0.0


def _repo_entry(jobs: list[JobFacts], config: ReputationConfig) -> dict[str, Any]:
    terms = [job_terms(job, config) for job in jobs]
    by_author: dict[str, list[JobTerms]] = defaultdict(list)
    for job, job_term in zip(jobs, terms, strict=True):
        by_author[job.author].append(job_term)
    means = terms_components(terms)
    return {
        "jobs": _state_counts(jobs),
        "rubric_quality": _component_dict(_quality(jobs)),
        "means": {name: _round(means[name].value) for name in COMPONENTS},
        "authors": {
            author: terms_entry(by_author[author], config, means) for author in sorted(by_author)
        },
    }


def author_entry(jobs: Sequence[JobFacts], config: ReputationConfig) -> dict[str, Any]:
    """One author's entry of `reputation.json`, from that author's jobs in one repo."""
    return terms_entry([job_terms(j, config) for j in jobs], config)


def terms_entry(
    jobs: Sequence[JobTerms],
    config: ReputationConfig,
    means: dict[str, Component] | None = None,
) -> dict[str, Any]:
    """One author's entry from the terms of their jobs in one repo (in `pr` order); with the
    repo's `means`, its `ranked` values too."""
    return components_entry(terms_components(jobs), _state_counts(jobs), config, means)


def components_entry(
    components: dict[str, Component],
    jobs: dict[str, int],
    config: ReputationConfig,
    means: dict[str, Component] | None = None,
) -> dict[str, Any]:
    """An author's entry from their components and job counts by state; with the scope's
    `means`, `ranked` (and each component's own) too."""
    reputation, coverage = combine(components, config)
    entry: dict[str, Any] = {
        "reputation": _round(reputation),
        "coverage": _round(coverage),
        "coverage_share": _round(coverage_share(coverage, config)),
        "jobs": jobs,
        "provisional": jobs["completed"] < config.provisional_below,
        "components": {name: _component_dict(components[name]) for name in COMPONENTS},
    }
    if means is not None:
        pulled = ranked_components(components, means, config.prior_jobs)
        entry["ranked"] = _round(combine(pulled, config)[0])
        for name in COMPONENTS:
            entry["components"][name]["ranked"] = _round(pulled[name].value)
    return entry


_Sums = tuple[float, float, int, float, int]
"""Σ rating term, Σ rating weight, ratings, Σ rubric_quality, jobs with one."""
_NO_SUMS: _Sums = (0.0, 0.0, 0, 0.0, 0)


class RunningTerms:
    """One author's job terms as they change, and `terms_entry` of them at any time without going
    over every job again: counts are kept up to date, and the rating and rubric_quality sums over
    the jobs in `pr` order are redone from the first job that changed, so every float is added in
    the same order."""

    def __init__(self) -> None:
        self.prs: list[int] = []
        self.terms: list[JobTerms] = []
        self.sums: list[_Sums] = []  # up to each job
        self.changed = 0
        self.counts = {"open": 0, "completed": 0, "abandoned": 0}
        self.tallies = [0, 0, 0, 0]  # completed jobs: all, disputed, with a deadline, on time

    def set(self, pr: int, terms: JobTerms) -> None:
        """Put in (or replace) one job's terms."""
        at = bisect_left(self.prs, pr)
        if at < len(self.prs) and self.prs[at] == pr:
            self._count(self.terms[at], -1)
            self.terms[at] = terms
        else:
            self.prs.insert(at, pr)
            self.terms.insert(at, terms)
            self.sums.insert(at, _NO_SUMS)
        self._count(terms, 1)
        self.changed = min(self.changed, at)

    def _count(self, job: JobTerms, sign: int) -> None:
        self.counts[job.state] += sign
        if job.state == "completed":
            known = job.on_time is not None
            for i, flag in enumerate((True, job.disputed, known, known and job.on_time)):
                self.tallies[i] += sign * bool(flag)

    def entry(self, config: ReputationConfig) -> dict[str, Any]:
        """`terms_entry` of the terms now."""
        numerator, denominator, n, quality, rated = (
            self.sums[self.changed - 1] if self.changed else _NO_SUMS
        )
        for at in range(self.changed, len(self.terms)):
            job = self.terms[at]
            if job.state == "completed":
                for term, weight in job.ratings:
                    numerator, denominator, n = numerator + term, denominator + weight, n + 1
                if job.rubric_quality is not None:
                    quality, rated = quality + job.rubric_quality, rated + 1
            self.sums[at] = (numerator, denominator, n, quality, rated)
        self.changed = len(self.terms)
        completed, disputed, known, on_time = self.tallies
        components = {
            "completion_rate": ratio(completed, completed + self.counts["abandoned"]),
            "timeliness_score": ratio(on_time, known),
            "dispute_penalty": undisputed(disputed, completed),
            "rating_score": Component(numerator / denominator if denominator else None, n),
            "rubric_quality": Component(quality / rated if rated else None, rated),
        }
        return components_entry(components, dict(self.counts), config)


def _state_counts(jobs: Sequence[JobFacts] | Sequence[JobTerms]) -> dict[str, int]:
    counts = {"open": 0, "completed": 0, "abandoned": 0}
    for job in jobs:
        counts[job.state] += 1
    return counts


def _on_time(job: JobFacts, config: ReputationConfig) -> bool | None:
    due = deadline(job.deadline, None, job.opened_at, config.sla_hours)
    if due is None or job.closed_at is None:
        return None
    return job.closed_at <= due


def _rating(completed: Sequence[JobTerms]) -> Component:
    numerator = denominator = 0.0
    count = 0
    for job in completed:
        for term, weight in job.ratings:
            numerator += term
            denominator += weight
            count += 1
    if not denominator:
        return Component(None, count)
    return Component(numerator / denominator, count)


def _quality(jobs: Sequence[JobFacts] | Sequence[JobTerms]) -> Component:
    total, count = 0.0, 0  # added one by one, in order, as `RunningTerms` adds them
    for job in jobs:
        if job.state == "completed" and job.rubric_quality is not None:
            total, count = total + job.rubric_quality, count + 1
    return Component(total / count if count else None, count)
