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
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from rubricate.report.scores import Scored, VersionKey
from rubricate.report.stats import RESAMPLES, SEED, Floats, kappa_estimate

MIN_PAIRS = 30
MACHINES = ("judge", "heuristic")
INSUFFICIENT = "insufficient data"


def calibration(
    scores: Mapping[VersionKey, Mapping[str, Scored]], *, seed: int = SEED
) -> dict[str, Any]:
    """The calibration section: every criterion's agreement for each machine source."""
    pairs: dict[tuple[str, str], list[tuple[Scored, Scored]]] = defaultdict(list)
    for (_, _, _, criterion), by_source in scores.items():
        reviewer = by_source.get("reviewer")
        if reviewer is None:
            continue
        for machine in MACHINES:
            if machine in by_source:
                pairs[(criterion, machine)].append((by_source[machine], reviewer))
    criteria = sorted({criterion for criterion, _ in pairs})
    return {
        "min_pairs": MIN_PAIRS,
        "seed": seed,
        "resamples": RESAMPLES,
        "criteria": {
            criterion: {m: agreement(pairs.get((criterion, m), []), seed) for m in MACHINES}
            for criterion in criteria
        },
    }


def agreement(pairs: Iterable[tuple[Scored, Scored]], seed: int = SEED) -> dict[str, Any]:
    """The numbers for one criterion and one machine source."""
    listed = list(pairs)
    if len(listed) < MIN_PAIRS:
        return {"n": len(listed), "status": INSUFFICIENT}
    machine, reviewer = (np.array([p[i].value for p in listed]) for i in (0, 1))
    low, high = _categories(listed, machine, reviewer)
    size = high - low + 1
    rows, cols = _category(machine, low, high), _category(reviewer, low, high)
    table = np.bincount(rows * size + cols, minlength=size * size).reshape(size, size).tolist()
    exact = int((rows == cols).sum())
    difference = math.fsum((machine - reviewer).tolist())
    kappa = kappa_estimate(table, seed=seed)
    return {
        "n": len(listed),
        "status": "ok",
        "kappa": kappa.value,
        "kappa_low": kappa.low,
        "kappa_high": kappa.high,
        "exact_agreement": exact / len(listed),
        "mean_difference": difference / len(listed),
        "scale": [low, high],
        "table": table,
    }


def _categories(
    pairs: list[tuple[Scored, Scored]], machine: Floats, reviewer: Floats
) -> tuple[int, int]:
    """The whole-point range of the scale the pairs were scored on."""
    scales = {s.scale for pair in pairs for s in pair} - {None}
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
