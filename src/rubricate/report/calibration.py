"""Calibration: does the judge, or do the heuristics, agree with reviewers? (pure)

A pair is a machine score and a reviewer score of the same criterion on the same version of a
job. Scores are compared as categories: rounded to whole points of the rubric's scale (from its
`min` to its `max`, or to the highest score seen on an open scale). Each criterion reports, for
judge-versus-reviewer and heuristic-versus-reviewer: the number of pairs, the quadratic-weighted
Cohen's kappa with a 95% bootstrap interval (`stats`), the share of exact agreement, and the mean
signed difference (machine − reviewer, in scale points: above zero means the machine is
lenient). Under `MIN_PAIRS` pairs only `n` is given, with the status "insufficient data".
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from rubricate.report.scores import Scored
from rubricate.report.stats import RESAMPLES, SEED, Floats, kappa_estimate

MIN_PAIRS = 30
MACHINES = ("judge", "heuristic")
INSUFFICIENT = "insufficient data"


Scale = tuple[float, float] | None
PairKey = tuple[str, str, float, float, Scale, Scale]
"""`(criterion, machine, machine score, reviewer score, machine scale, reviewer scale)`."""
Pairs = tuple[float, float, Scale, Scale]
"""A pair's scores and scales, machine first."""


def calibration(pairs: Mapping[PairKey, int], *, seed: int = SEED) -> dict[str, Any]:
    """The calibration section: every criterion's agreement for each machine source, from how
    many times each pair occurs (`tallies.Tally.pairs`)."""
    grouped: dict[tuple[str, str], dict[Pairs, int]] = defaultdict(dict)
    for (criterion, machine, mine, theirs, m_scale, r_scale), count in pairs.items():
        grouped[(criterion, machine)][(mine, theirs, m_scale, r_scale)] = count
    criteria = sorted({criterion for criterion, _ in grouped})
    return {
        "min_pairs": MIN_PAIRS,
        "seed": seed,
        "resamples": RESAMPLES,
        "criteria": {
            criterion: {m: _agreement(grouped.get((criterion, m), {}), seed) for m in MACHINES}
            for criterion in criteria
        },
    }


def agreement(pairs: Iterable[tuple[Scored, Scored]], seed: int = SEED) -> dict[str, Any]:
    """The numbers for one criterion and one machine source."""
    counts: Counter[Pairs] = Counter(
        (mine.value, theirs.value, mine.scale, theirs.scale) for mine, theirs in pairs
    )
    return _agreement(counts, seed)


def _agreement(pairs: Mapping[Pairs, int], seed: int) -> dict[str, Any]:
    """`agreement` from how many times each pair occurs (their order changes nothing)."""
    total = sum(pairs.values())
    if total < MIN_PAIRS:
        return {"n": total, "status": INSUFFICIENT}
    times = list(pairs.values())
    machine, reviewer = (np.repeat([p[i] for p in pairs], times) for i in (0, 1))
    scales = {s for p in pairs for s in p[2:]} - {None}
    low, high = _categories(scales, machine, reviewer)
    size = high - low + 1
    rows, cols = _category(machine, low, high), _category(reviewer, low, high)
    table = np.bincount(rows * size + cols, minlength=size * size).reshape(size, size).tolist()
    exact = int((rows == cols).sum())
    difference = math.fsum((machine - reviewer).tolist())
    kappa = kappa_estimate(table, seed=seed)
    return {
        "n": total,
        "status": "ok",
        "kappa": kappa.value,
        "kappa_low": kappa.low,
        "kappa_high": kappa.high,
        "exact_agreement": exact / total,
        "mean_difference": difference / total,
        "scale": [low, high],
        "table": table,
    }


def _categories(scales: set[Scale], machine: Floats, reviewer: Floats) -> tuple[int, int]:
    """The whole-point range of the scale the pairs were scored on."""
    top = max(machine.max(), reviewer.max())
    low = min(
        [math.floor(s[0]) for s in scales if s] or [math.floor(min(machine.min(), reviewer.min()))]
    )
    high = max([math.ceil(s[1]) for s in scales if s] or [math.ceil(top)])
    return low, max(high, math.ceil(top))


def _category(values: Floats, low: int, high: int) -> npt.NDArray[np.int64]:
    """Each value's whole-point category, from 0 for `low` (values beyond the scale clamped)."""
    whole: npt.NDArray[np.int64] = np.clip(np.floor(values + 0.5), low, high).astype(np.int64)
    return whole - low
