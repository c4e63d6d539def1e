"""Agora V3 reputation per author and repo, from folded jobs (pure: data in, data out).

- completion_rate = completed / (completed + abandoned); open jobs are left out.
- timeliness_score = completed jobs closed at or before their deadline / completed jobs with a
  deadline. The deadline is the `final_approval` event's own, else `opened + sla_hours` when an
  SLA is configured.
- dispute_penalty = 1 − completed jobs with a `disputed` event / completed jobs.
- rating_score = Σ wᵣ·(rating − 1)/4 / Σ wᵣ over `rated` events of completed jobs, wᵣ by role.
- rubric_quality = the mean of the completed jobs' rubric_quality values that exist.
Sums are exact (`Totals`) and rounded once, so totals kept per author add up to the same bytes.
- reputation = Σ weight·component / Σ weight over the components with data;
  coverage = Σ weight of those components (as configured, so 1.0 with every component present
  under the default weights); coverage_share = coverage / Σ weight of all components.

Beside it, how sure it is: each component's `interval`, `provisional` (fewer than
`provisional_below` completed jobs) and `ranked` (see `rubricate.ledger.confidence`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from rubricate.ledger.confidence import Component, ranked_components, ratio, undisputed
from rubricate.ledger.confidence import component_dict as _component_dict
from rubricate.ledger.confidence import round_value as _round
from rubricate.ledger.deadline import deadline
from rubricate.ledger.event import SCHEMA_VERSION, Event, rfc3339
from rubricate.ledger.fold import JobFacts, JobStatus, fold_jobs

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
    """The `reputation.json` content from every job's facts."""
    by_repo: dict[str, dict[str, Totals]] = defaultdict(lambda: defaultdict(Totals))
    for job in facts:
        by_repo[job.repo][job.author].add(job_terms(job, config))
    return totals_document(by_repo, len(facts), config, counts)


def totals_document(
    by_repo: Mapping[str, Mapping[str, Totals]],
    jobs: int,
    config: ReputationConfig,
    counts: LedgerCounts,
) -> dict[str, Any]:
    """The `reputation.json` content from each repository's authors' totals (of `jobs` jobs)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "generated_at": rfc3339(counts.newest_at),
        "config": config.model_dump(mode="json"),
        "ledger": {
            "events": counts.events,
            "jobs": jobs,
            "corrupt_lines": counts.corrupt,
            "duplicate_lines": counts.duplicates,
        },
        "repos": {repo: repo_entry(by_repo[repo], config) for repo in sorted(by_repo)},
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


def terms_components(jobs: Iterable[JobTerms]) -> dict[str, Component]:
    """The five components from one author's (or a repository's) job terms."""
    return Totals.of(jobs).components()


def combine(
    components: dict[str, Component], config: ReputationConfig
) -> tuple[float | None, float]:
    """Reputation (weights renormalized over components with data) and its coverage.

    The coverage is Σ weight of the components with data, as the weights are configured.
    """
    return _combined(components, config.weights.model_dump())


def _combined(
    components: dict[str, Component], weights: Mapping[str, float]
) -> tuple[float | None, float]:
    present = [(weights[name], c.value) for name, c in components.items() if c.value is not None]
    coverage = sum(w for w, _ in present)
    if not coverage:
        return None, coverage
    return sum(w * v for w, v in present if v is not None) / coverage, coverage


def coverage_share(coverage: float, config: ReputationConfig) -> float:
    """The coverage as a share of the total weight (0.0 when every weight is 0)."""
    return _share(coverage, sum(config.weights.model_dump().values()))


def _share(coverage: float, total: float) -> float:
    return coverage / total if total else 0.0


@dataclass(frozen=True)
class TipEntry:
    """A repository's entry of `reputation.json` as the tip has it (what `repo_entry` gave),
    the exact means its authors' `ranked` values were pulled toward, and the authors whose
    totals moved since."""

    entry: dict[str, Any]
    means: dict[str, Component]
    moved: Collection[str]


def whole_totals(authors: Mapping[str, Totals]) -> Totals:
    """A repository's totals: its authors' added up."""
    whole = Totals()
    for login in sorted(authors):
        whole.merge(authors[login])
    return whole


def repo_entry(
    authors: Mapping[str, Totals], config: ReputationConfig, tip: TipEntry | None = None
) -> dict[str, Any]:
    """A repository's entry of `reputation.json` from its authors' totals.

    With the `tip`'s entry, an author whose totals did not move keeps the tip's entry: as it is
    when no mean moved, else with only its `ranked` values pulled toward the new means (its
    components and counts are those of the same totals). The entry is the same either way.
    """
    whole = whole_totals(authors)
    means = whole.components()
    entries = Entries(config)
    kept = {} if tip is None else entries.kept(tip, authors, means)
    return {
        "jobs": dict(whole.counts),
        "rubric_quality": _component_dict(means["rubric_quality"]),
        "means": {name: _round(means[name].value) for name in COMPONENTS},
        "authors": {
            login: kept[login]
            if login in kept
            else entries.entry(authors[login].components(), dict(authors[login].counts), means)
            for login in sorted(authors)
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
    return Entries(config).entry(components, jobs, means)


class Entries:
    """`components_entry` under one config, for many entries (a series' points): the weights
    are read once, and each component's shown form (`component_dict`) is made once per value
    and count."""

    def __init__(self, config: ReputationConfig) -> None:
        self.config = config
        self.weights = config.weights.model_dump()
        self.total = sum(self.weights.values())
        self.shown: dict[tuple[float, int], tuple[float | None, list[float | None] | None]] = {}

    def entry(
        self,
        components: dict[str, Component],
        jobs: dict[str, int],
        means: dict[str, Component] | None = None,
    ) -> dict[str, Any]:
        """`components_entry` of these components and counts (`means` as there)."""
        config = self.config
        reputation, coverage = _combined(components, self.weights)
        entry: dict[str, Any] = {
            "reputation": _round(reputation),
            "coverage": _round(coverage),
            "coverage_share": _round(_share(coverage, self.total)),
            "jobs": jobs,
            "provisional": jobs["completed"] < config.provisional_below,
            "components": {name: self.component(components[name]) for name in COMPONENTS},
        }
        if means is not None:
            self._rank(entry, entry["components"], components, means)
        return entry

    def kept(
        self, tip: TipEntry, authors: Mapping[str, Totals], means: dict[str, Component]
    ) -> dict[str, dict[str, Any]]:
        """The tip's entries of the authors whose totals did not move (see `repo_entry`)."""
        same = all(tip.means[name].value == means[name].value for name in COMPONENTS)
        kept = {}
        for login, entry in tip.entry["authors"].items():
            if login in tip.moved or login not in authors:
                continue
            if same:
                kept[login] = entry
            else:
                shown = {name: dict(entry["components"][name]) for name in COMPONENTS}
                kept[login] = self._rank(
                    {**entry, "components": shown}, shown, authors[login].components(), means
                )
        return kept

    def _rank(
        self,
        entry: dict[str, Any],
        shown: dict[str, dict[str, Any]],
        components: dict[str, Component],
        means: dict[str, Component],
    ) -> dict[str, Any]:
        """Set an entry's `ranked` values (its own and its components', `shown`)."""
        pulled = ranked_components(components, means, self.config.prior_jobs)
        entry["ranked"] = _round(_combined(pulled, self.weights)[0])
        for name in COMPONENTS:
            shown[name]["ranked"] = _round(pulled[name].value)
        return entry

    def component(self, component: Component) -> dict[str, Any]:
        """`component_dict` of a component (a new dict each time)."""
        value = component.value
        if not value:  # None, or a zero (whose sign the memo's key would not tell apart)
            return _component_dict(component)
        key = (value, component.n)
        known = self.shown.get(key)
        if known is None:
            made = _component_dict(component)
            known = self.shown[key] = (made["value"], made["interval"])
        interval = known[1]
        return {
            "value": known[0],
            "n": component.n,
            "interval": None if interval is None else [*interval],
        }


SCALE = 1074
"""Every float is a whole multiple of 2**-1074: sums are kept as exact integers in that unit, so
adding and taking away in any order gives the same total, and the mean is rounded once."""


def exact(value: float) -> int:
    """A float as a whole number of 2**-1074."""
    numerator, denominator = value.as_integer_ratio()
    return numerator << (SCALE - denominator.bit_length() + 1)


class Totals:
    """Running totals of jobs' terms (an author's, or a repository's): the counts, and the exact
    rating and rubric_quality sums over completed jobs. `add` with `sign=-1` takes a job away."""

    __slots__ = ("counts", "sums", "tallies")

    def __init__(self) -> None:
        self.counts = {"open": 0, "completed": 0, "abandoned": 0}
        self.tallies = [0, 0, 0, 0, 0]  # disputed, with a deadline, on time, ratings, qualities
        self.sums = [0, 0, 0]  # exact Σ rating term, Σ rating weight, Σ rubric_quality

    @classmethod
    def of(cls, jobs: Iterable[JobTerms]) -> Totals:
        """The totals of these jobs."""
        totals = cls()
        for job in jobs:
            totals.add(job)
        return totals

    @property
    def jobs(self) -> int:
        """How many jobs the totals hold."""
        return sum(self.counts.values())

    def add(self, job: JobTerms, sign: int = 1) -> None:
        """Count one job in (or, with `sign=-1`, out)."""
        self.counts[job.state] += sign
        if job.state != "completed":
            return
        known = job.on_time is not None
        tallies, sums = self.tallies, self.sums
        tallies[0] += sign * job.disputed
        tallies[1] += sign * known
        tallies[2] += sign * bool(known and job.on_time)
        for term, weight in job.ratings:
            tallies[3] += sign
            sums[0] += sign * exact(term)
            sums[1] += sign * exact(weight)
        if job.rubric_quality is not None:
            tallies[4] += sign
            sums[2] += sign * exact(job.rubric_quality)

    def merge(self, other: Totals) -> None:
        """Add another's totals to these."""
        for state, count in other.counts.items():
            self.counts[state] += count
        self.tallies = [a + b for a, b in zip(self.tallies, other.tallies, strict=True)]
        self.sums = [a + b for a, b in zip(self.sums, other.sums, strict=True)]

    def components(self) -> dict[str, Component]:
        """The five components of these totals."""
        completed = self.counts["completed"]
        disputed, timed, on_time, ratings, rated = self.tallies
        rating, weight, quality = self.sums
        return {
            "completion_rate": ratio(completed, completed + self.counts["abandoned"]),
            "timeliness_score": ratio(on_time, timed),
            "dispute_penalty": undisputed(disputed, completed),
            "rating_score": Component(rating / weight if weight else None, ratings),
            "rubric_quality": Component(quality / (rated << SCALE) if rated else None, rated),
        }

    def row(self) -> list[Any]:
        """The totals as a JSON row (sums as `[mantissa, shift]`)."""
        return [*self.counts.values(), *self.tallies, *(_packed(v) for v in self.sums)]

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> Totals:
        """The inverse of `row`; ValueError when it is not one."""
        if len(row) != 11:
            raise ValueError("a totals row has 11 values")
        totals = cls()
        totals.counts = dict(zip(totals.counts, (int(v) for v in row[:3]), strict=True))
        totals.tallies = [int(v) for v in row[3:8]]
        totals.sums = [int(m) << int(shift) for m, shift in row[8:]]
        return totals


def _packed(value: int) -> list[int]:
    shift = (value & -value).bit_length() - 1 if value else 0
    return [value >> shift, shift]


class RunningTerms:
    """One author's job terms as they change, and `terms_entry` of them at any time without going
    over every job again (the totals are exact, so a replaced job is simply taken away)."""

    def __init__(self) -> None:
        self.terms: dict[int, JobTerms] = {}
        self.totals = Totals()

    def set(self, pr: int, terms: JobTerms) -> None:
        """Put in (or replace) one job's terms."""
        old = self.terms.get(pr)
        if old is not None:
            self.totals.add(old, -1)
        self.terms[pr] = terms
        self.totals.add(terms)

    def entry(self, entries: Entries) -> dict[str, Any]:
        """`terms_entry` of the terms now (under `entries`' config)."""
        return entries.entry(self.totals.components(), dict(self.totals.counts))


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
