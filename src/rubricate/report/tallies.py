"""What the score distributions and calibration count, job by job (pure: scores in, counts out).

Both sections are functions of counts: how many versions got each whole-point score from each
source on each criterion, and how many times each pair of a machine's and a reviewer's score
(with the scales they were given on) occurs. Counts add up over jobs, so a report that reuses the
last one's (`refresh`) takes away the tally of each job that changed and adds its new one,
without reading the scores of the jobs that did not change (docs/report.md).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rubricate.report.calibration import MACHINES, PairKey
from rubricate.report.scores import Scored

ScoreKey = tuple[str, str, int]
"""`(criterion, source, whole-point score)`."""


@dataclass
class Tally:
    """The counts of the score distributions (`scores`) and of calibration's pairs (`pairs`)."""

    scores: Counter[ScoreKey] = field(default_factory=Counter)
    pairs: Counter[PairKey] = field(default_factory=Counter)

    def add(self, scored: Iterable[Scored], sign: int = 1) -> None:
        """Count the latest scores of one job (`sign` -1: take them away)."""
        by_version: dict[tuple[str, int, int, str], dict[str, Scored]] = defaultdict(dict)
        for s in scored:
            by_version[(s.repo, s.pr, s.version, s.criterion)][s.source] = s
        for (_, _, _, criterion), by_source in by_version.items():
            for source, s in by_source.items():
                bump(self.scores, (criterion, source, math.floor(s.value + 0.5)), sign)
            reviewer = by_source.get("reviewer")
            if reviewer is None:
                continue
            for machine in MACHINES:
                m = by_source.get(machine)
                if m is not None:
                    pair = (criterion, machine, m.value, reviewer.value, m.scale, reviewer.scale)
                    bump(self.pairs, pair, sign)

    def merge(self, other: Tally) -> None:
        """Count in another tally's counts (of other jobs)."""
        self.scores.update(other.scores)
        self.pairs.update(other.pairs)

    def rows(self) -> dict[str, list[list[Any]]]:
        """The counts as JSON-ready rows (`read_tally` reads them back), in one order however
        they were counted."""
        return {
            "scores": [[*key, n] for key, n in sorted(self.scores.items())],
            "pairs": [[*key, n] for key, n in sorted(self.pairs.items(), key=repr)],
        }


def tally_of(jobs: Iterable[Iterable[Scored]]) -> Tally:
    """The counts over these jobs' latest scores."""
    tally = Tally()
    for scored in jobs:
        tally.add(scored)
    return tally


def read_tally(rows: dict[str, list[list[Any]]]) -> Tally:
    """The inverse of `Tally.rows`; ValueError, TypeError or KeyError when it is not one."""
    scores: Counter[ScoreKey] = Counter()
    for criterion, source, whole, n in rows["scores"]:
        scores[(str(criterion), str(source), int(whole))] = int(n)
    pairs: Counter[PairKey] = Counter()
    for criterion, machine, mine, theirs, m_scale, r_scale, n in rows["pairs"]:
        mine_scale, their_scale = _scale(m_scale), _scale(r_scale)
        key = (str(criterion), str(machine), float(mine), float(theirs), mine_scale, their_scale)
        pairs[key] = int(n)
    return Tally(scores, pairs)


def _scale(value: Any) -> tuple[float, float] | None:
    if value is None:
        return None
    low, high = value
    return (float(low), float(high))


def bump(counts: Counter[Any], key: Any, sign: int) -> None:
    """Add `sign` to a count, dropping it at zero (equal counts are then equal dicts)."""
    value = counts[key] + sign
    if value:
        counts[key] = value
    else:
        del counts[key]
