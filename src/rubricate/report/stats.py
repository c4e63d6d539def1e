"""Calibration and the statistics behind it (pure: numbers in, numbers out).

Does the judge, or do the heuristics, agree with reviewers? A pair is a machine score and a
reviewer score of the same criterion on the same version of a job. Scores are compared as
categories: rounded to whole points of the rubric's scale (from its `min` to its `max`, or to the
highest score seen on an open scale). Each criterion reports, for judge-versus-reviewer and
heuristic-versus-reviewer: the number of pairs, the quadratic-weighted Cohen's kappa with a 95%
bootstrap interval, the share of exact agreement, and the mean signed difference (machine −
reviewer, in scale points: above zero means the machine is lenient). Under `MIN_PAIRS` pairs
only `n` is given, with the status "insufficient data".

- Quadratic-weighted Cohen's kappa from a k×k table of (machine, reviewer) categories:
  κ = 1 − Σ wᵢⱼ·Oᵢⱼ / Σ wᵢⱼ·Eᵢⱼ with wᵢⱼ = (i − j)² / (k − 1)² and E the product of the margins.
  Its 95% interval resamples the pairs (a multinomial draw over the table's cells).
- Spearman's ρ: Pearson's r of average ranks (ties share their mean rank). Its 95% interval
  resamples the jobs; each resample is ranked again, with ties handled exactly.
- Intervals are percentile intervals of `RESAMPLES` draws from `numpy.random.default_rng(seed)`,
  so the same data and seed always give the same interval. A resample on which the statistic is
  undefined (no spread) is left out.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from rubricate.report.scores import Scored, VersionKey


RESAMPLES = 1000
SEED = 20240601
_CHUNK = 100
Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Estimate:
    """A statistic with its 95% bootstrap interval (None where undefined)."""

    value: float | None
    low: float | None
    high: float | None


def kappa_table(table: Sequence[Sequence[float]]) -> float | None:
    """Quadratic-weighted kappa of one k×k table (rows: first rater); None when undefined."""
    values = _kappas(np.asarray(table, dtype=np.float64)[np.newaxis])
    return None if np.isnan(values[0]) else float(values[0])


def kappa_estimate(
    table: Sequence[Sequence[float]], *, seed: int = SEED, resamples: int = RESAMPLES
) -> Estimate:
    """Kappa of the table and its 95% interval from resampling the pairs."""
    counts = np.asarray(table, dtype=np.float64)
    total = int(counts.sum())
    value = kappa_table(counts.tolist())
    if value is None or total == 0:
        return Estimate(value, None, None)
    rng = np.random.default_rng(seed)
    cells = counts.ravel() / total
    draws = rng.multinomial(total, cells, size=resamples).astype(np.float64)
    kappas = _kappas(draws.reshape(resamples, *counts.shape))
    return _interval(value, kappas)


def _kappas(tables: Floats) -> Floats:
    """Kappa of each table in a stack (NaN where the expected disagreement is zero)."""
    size = tables.shape[-1]
    index = np.arange(size, dtype=np.float64)
    weights = (index[:, None] - index[None, :]) ** 2 / max(size - 1, 1) ** 2
    totals = tables.sum(axis=(1, 2))
    rows = tables.sum(axis=2)
    cols = tables.sum(axis=1)
    expected = np.einsum("bi,bj->bij", rows, cols) / np.where(totals == 0, 1, totals)[:, None, None]
    observed_w = (tables * weights).sum(axis=(1, 2))
    expected_w = (expected * weights).sum(axis=(1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        kappas: Floats = np.where(expected_w > 0, 1.0 - observed_w / expected_w, np.nan)
    return kappas


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rank correlation; None with fewer than 3 points or no spread."""
    if len(x) != len(y):
        raise ValueError("x and y must have the same length")
    if len(x) < 3:
        return None
    px, py, counts = _distinct_pairs(x, y)
    value = _weighted_spearman(px, py, counts[np.newaxis])[0]
    return None if np.isnan(value) else float(value)


def spearman_estimate(
    x: Sequence[float], y: Sequence[float], *, seed: int = SEED, resamples: int = RESAMPLES
) -> Estimate:
    """Spearman's ρ and its 95% interval from resampling the points."""
    value = spearman(x, y)
    if value is None:
        return Estimate(None, None, None)
    px, py, counts = _distinct_pairs(x, y)
    total = int(counts.sum())
    rng = np.random.default_rng(seed)
    owner = np.repeat(np.arange(len(counts)), counts.astype(np.int64))
    found: list[Floats] = []
    for start in range(0, resamples, _CHUNK):
        size = min(_CHUNK, resamples - start)
        if len(counts) * 4 < total:  # few distinct pairs: draw how often each one comes up
            weights = rng.multinomial(total, counts / total, size=size).astype(np.float64)
        else:
            weights = _row_counts(owner[rng.integers(0, total, size=(size, total))], len(counts))
        found.append(_weighted_spearman(px, py, weights))
    return _interval(value, np.concatenate(found))


def _distinct_pairs(x: Sequence[float], y: Sequence[float]) -> tuple[Floats, Floats, Floats]:
    """The distinct (x, y) pairs, in a fixed order, and how often each occurs."""
    stacked = np.column_stack([np.asarray(x, float), np.asarray(y, float)])
    pairs, counts = np.unique(stacked, axis=0, return_counts=True)
    return pairs[:, 0], pairs[:, 1], counts.astype(np.float64)


def _weighted_spearman(x: Floats, y: Floats, weights: Floats) -> Floats:
    """ρ for each row of `weights` (how often each point is drawn), ties ranked exactly."""
    rx, ry = _ranks(x, weights), _ranks(y, weights)
    total = weights.sum(axis=1, keepdims=True)
    mx = (weights * rx).sum(axis=1, keepdims=True) / total
    my = (weights * ry).sum(axis=1, keepdims=True) / total
    dx, dy = rx - mx, ry - my
    cov = (weights * dx * dy).sum(axis=1)
    spread = np.sqrt((weights * dx * dx).sum(axis=1) * (weights * dy * dy).sum(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        rho: Floats = np.where(spread > 0, cov / spread, np.nan)
    return rho


def _ranks(values: Floats, weights: Floats) -> Floats:
    """Each point's average rank within each weighted sample (ties share their mean rank)."""
    distinct, group = np.unique(values, return_inverse=True)
    per_group = np.zeros((weights.shape[0], len(distinct)))
    for column, members in enumerate(_members(group, len(distinct))):
        per_group[:, column] = weights[:, members].sum(axis=1)
    above = np.cumsum(per_group, axis=1)
    ranks: Floats = (above - (per_group - 1.0) / 2.0)[:, group]
    return ranks


def _members(group: npt.NDArray[np.intp], size: int) -> list[npt.NDArray[np.intp]]:
    """The positions of each group's members."""
    order = np.argsort(group, kind="stable")
    bounds = np.searchsorted(group[order], np.arange(size + 1))
    return [order[bounds[i] : bounds[i + 1]] for i in range(size)]


def _row_counts(drawn: npt.NDArray[np.int64], size: int) -> Floats:
    """How often each of `size` items was drawn, for each row of draws."""
    offsets = np.arange(drawn.shape[0])[:, None] * size
    flat = np.bincount((drawn + offsets).ravel(), minlength=drawn.shape[0] * size)
    weights: Floats = flat.reshape(drawn.shape[0], size).astype(np.float64)
    return weights


def _interval(value: float, draws: Floats) -> Estimate:
    kept = draws[~np.isnan(draws)]
    if kept.size == 0:
        return Estimate(value, None, None)
    low, high = np.percentile(kept, [2.5, 97.5])
    return Estimate(value, float(low), float(high))


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
    low, high = _categories(listed)
    size = high - low + 1
    rows, cols = (_category(np.array([p[i].value for p in listed]), low, high) for i in (0, 1))
    table = np.bincount(rows * size + cols, minlength=size * size).reshape(size, size).tolist()
    exact = int((rows == cols).sum())
    difference = sum(machine.value - reviewer.value for machine, reviewer in listed)
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


def _categories(pairs: list[tuple[Scored, Scored]]) -> tuple[int, int]:
    """The whole-point range of the scale the pairs were scored on."""
    values = [s.value for pair in pairs for s in pair]
    scales = [s.scale for pair in pairs for s in pair if s.scale is not None]
    low = min([math.floor(s.min) for s in scales] or [math.floor(min(values))])
    high = max([math.ceil(s.max) for s in scales] or [math.ceil(max(values))])
    return low, max(high, math.ceil(max(values)))


def _category(values: Floats, low: int, high: int) -> npt.NDArray[np.int64]:
    """Each value's whole-point category, from 0 for `low` (values beyond the scale clamped)."""
    whole: npt.NDArray[np.int64] = np.clip(np.floor(values + 0.5), low, high).astype(np.int64)
    return whole - low
