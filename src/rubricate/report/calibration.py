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

from rubricate.report.memo import RESAMPLES, SEED, Memo, numpy_unusable
from rubricate.report.scores import Scored

MIN_PAIRS = 30
MACHINES = ("judge", "heuristic")
INSUFFICIENT = "insufficient data"


Scale = tuple[float, float] | None
PairKey = tuple[str, str, float, float, Scale, Scale]
"""`(criterion, machine, machine score, reviewer score, machine scale, reviewer scale)`."""
Pairs = tuple[float, float, Scale, Scale]
"""A pair's scores and scales, machine first."""


def calibration(
    pairs: Mapping[PairKey, int], *, seed: int = SEED, memo: Memo | None = None
) -> dict[str, Any]:
    """The calibration section: every criterion's agreement for each machine source, from how
    many times each pair occurs (`tallies.Tally.pairs`); `memo`: agreements kept by the last
    report, taken when their pairs are the same."""
    grouped: dict[tuple[str, str], dict[Pairs, int]] = defaultdict(dict)
    for (criterion, machine, mine, theirs, m_scale, r_scale), count in pairs.items():
        grouped[(criterion, machine)][(mine, theirs, m_scale, r_scale)] = count
    criteria = sorted({criterion for criterion, _ in grouped})
    memo = memo or Memo()
    return {
        "min_pairs": MIN_PAIRS,
        "seed": seed,
        "resamples": RESAMPLES,
        "criteria": {
            criterion: {m: _recalled(grouped.get((criterion, m), {}), seed, memo) for m in MACHINES}
            for criterion in criteria
        },
    }


def agreement(pairs: Iterable[tuple[Scored, Scored]], seed: int = SEED) -> dict[str, Any]:
    """The numbers for one criterion and one machine source."""
    counts: Counter[Pairs] = Counter(
        (mine.value, theirs.value, mine.scale, theirs.scale) for mine, theirs in pairs
    )
    return _agreement(counts, seed)


def _recalled(pairs: Mapping[Pairs, int], seed: int, memo: Memo) -> dict[str, Any]:
    """`_agreement`, from the memo when it holds the one of these pairs."""
    if sum(pairs.values()) < MIN_PAIRS:  # nothing drawn: nothing to keep
        return _agreement(pairs, seed)
    rows = sorted([repr(pair), n] for pair, n in pairs.items())
    agreed: dict[str, Any] = memo.recall(
        ["agreement", MIN_PAIRS, RESAMPLES, seed, rows], lambda: _agreement(pairs, seed)
    )
    return agreed


def _agreement(pairs: Mapping[Pairs, int], seed: int) -> dict[str, Any]:
    """`agreement` from how many times each pair occurs (their order changes nothing)."""
    total = sum(pairs.values())
    if total < MIN_PAIRS:
        return {"n": total, "status": INSUFFICIENT}
    low, high = _categories(pairs)
    size = high - low + 1
    table = [[0] * size for _ in range(size)]
    exact = 0
    for (mine, theirs, _, _), n in pairs.items():
        row, col = _category(mine, low, high), _category(theirs, low, high)
        table[row][col] += n
        exact += n if row == col else 0
    difference = math.fsum(
        d for (mine, theirs, _, _), n in pairs.items() for d in [mine - theirs] * n
    )
    # numpy (through `stats`) only now that an estimate is drawn: a kept one needs none
    try:
        from rubricate.report.stats import kappa_estimate
    except ImportError as exc:
        raise numpy_unusable(exc) from None

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


def _categories(pairs: Mapping[Pairs, int]) -> tuple[int, int]:
    """The whole-point range of the scale the pairs were scored on."""
    scales = {s for pair in pairs for s in pair[2:]} - {None}
    values = [v for pair in pairs for v in pair[:2]]
    top = max(values)
    low = min([math.floor(s[0]) for s in scales if s] or [math.floor(min(values))])
    high = max([math.ceil(s[1]) for s in scales if s] or [math.ceil(top)])
    return low, max(high, math.ceil(top))


def _category(value: float, low: int, high: int) -> int:
    """A value's whole-point category, from 0 for `low` (values beyond the scale clamped)."""
    return max(low, min(high, math.floor(value + 0.5))) - low
