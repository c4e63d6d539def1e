"""One author's jobs in one repository summed up before any config is applied (pure: facts in,
totals out).

The PostgreSQL ledger keeps one `Tally` per author, refreshed in the transaction that inserts
their events, so an org-wide reputation reads one row per author instead of one per job. A tally
holds what `reputation.Totals` needs whatever the config: the jobs by state, disputes, the
completed jobs closed on time against their own deadline, the time each other completed job took
(checked against `sla_hours` when the config has one), the ratings counted by role and value
(weighted by the config's trust), the exact sum of the rubric_quality values, the events and the
newest event's time. `totals(config)` then gives exactly the `Totals` of the jobs' terms under
that config (every sum is kept exact), so `reputation.json` is byte for byte the fold's.
"""

from __future__ import annotations

import json
from bisect import bisect_left, bisect_right, insort
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from rubricate.ledger.fold import JobFacts
from rubricate.ledger.reputation import Totals, exact
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.ledger.times import read_time

_STATES = ("open", "completed", "abandoned")
_MICROSECONDS = 1_000_000


@dataclass
class Tally:
    """An author's jobs in one repository, summed before any config is applied."""

    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(_STATES, 0))
    disputed: int = 0
    timed: int = 0
    """Completed jobs with their own deadline and a closing time."""
    on_time: int = 0
    took: list[int] = field(default_factory=list)
    """Sorted: how long each completed job without its own deadline took (microseconds)."""
    ratings: Counter[tuple[str, int]] = field(default_factory=Counter)
    quality: list[int] = field(default_factory=lambda: [0, 0])
    """How many completed jobs have a rubric_quality, and the exact sum of those values."""
    events: int = 0
    newest: datetime | None = None

    @classmethod
    def of(cls, jobs: Iterable[JobFacts]) -> Tally:
        """The tally of these jobs."""
        tally = cls()
        for job in jobs:
            took = tally._count(job, 1)
            if took is not None:
                tally.took.append(took)
        tally.took.sort()
        return tally

    def add(self, job: JobFacts) -> None:
        """Count one more job in."""
        took = self._count(job, 1)
        if took is not None:
            insort(self.took, took)

    def remove(self, job: JobFacts) -> None:
        """Take a job counted in out again (its author's newest time stays: a job's events only
        ever grow, so the newest time never goes back)."""
        took = self._count(job, -1)
        if took is not None:
            del self.took[bisect_left(self.took, took)]

    def _count(self, job: JobFacts, sign: int) -> int | None:
        """Count the job in (`sign` 1) or out (-1); how long it took, when `took` should hold it."""
        self.counts[job.state] += sign
        self.events += sign * job.events
        if sign > 0:
            self.newest = job.last_at if self.newest is None else max(self.newest, job.last_at)
        if job.state != "completed":
            return None
        self.disputed += sign * job.disputed
        if sign > 0:
            self.ratings.update(job.ratings)
        else:
            self.ratings.subtract(job.ratings)
            self.ratings = +self.ratings  # no rating left at zero
        if job.rubric_quality is not None:
            self.quality[0] += sign
            self.quality[1] += sign * exact(job.rubric_quality)
        if job.closed_at is not None and job.deadline is not None:
            self.timed += sign
            self.on_time += sign * (job.closed_at <= job.deadline)
        elif job.closed_at is not None:
            return _microseconds(job.closed_at - job.opened_at)
        return None

    def totals(self, config: ReputationConfig) -> Totals:
        """The `Totals` of these jobs' terms under `config` (what `job_terms` would sum)."""
        totals = Totals()
        totals.counts = dict(self.counts)
        timed, on_time = self.timed, self.on_time
        if config.sla_hours is not None:
            timed += len(self.took)
            on_time += bisect_right(self.took, _microseconds(timedelta(hours=config.sla_hours)))
        rated = rating = weight = 0
        for (role, value), count in self.ratings.items():
            share = config.trust.for_role(role)
            rated += count
            rating += count * exact(share * (value - 1) / 4)
            weight += count * exact(share)
        totals.tallies = [self.disputed, timed, on_time, rated, self.quality[0]]
        totals.sums = [rating, weight, self.quality[1]]
        return totals

    def to_json(self) -> str:
        """The tally as one JSON text (the exact sum as a decimal string)."""
        return json.dumps(
            {
                "counts": self.counts,
                "disputed": self.disputed,
                "timed": [self.timed, self.on_time],
                "took": self.took,
                "ratings": sorted([role, value, n] for (role, value), n in self.ratings.items()),
                "quality": [self.quality[0], str(self.quality[1])],
                "events": self.events,
                "newest": None if self.newest is None else self.newest.isoformat(),
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str) -> Tally:
        """The inverse of `to_json`."""
        data: dict[str, Any] = json.loads(text)
        newest = data["newest"]
        return cls(
            counts={state: int(data["counts"][state]) for state in _STATES},
            disputed=int(data["disputed"]),
            timed=int(data["timed"][0]),
            on_time=int(data["timed"][1]),
            took=[int(t) for t in data["took"]],
            ratings=Counter({(str(r), int(v)): int(n) for r, v, n in data["ratings"]}),
            quality=[int(data["quality"][0]), int(data["quality"][1])],
            events=int(data["events"]),
            newest=None if newest is None else read_time(newest),
        )


def _microseconds(span: timedelta) -> int:
    return (span.days * 86_400 + span.seconds) * _MICROSECONDS + span.microseconds
