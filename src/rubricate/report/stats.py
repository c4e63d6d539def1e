"""The statistics behind calibration and the weights evidence (pure: numbers in, numbers out).

- Quadratic-weighted Cohen's kappa from a k×k table of (first rater, second rater) categories:
  κ = 1 − Σ wᵢⱼ·Oᵢⱼ / Σ wᵢⱼ·Eᵢⱼ with wᵢⱼ = (i − j)² / (k − 1)² and E the product of the margins.
  Its 95% interval resamples the pairs (a multinomial draw over the table's cells).
- Spearman's ρ: Pearson's r of average ranks (ties share their mean rank). Its 95% interval
  resamples the points; each resample is ranked again, with ties handled exactly.
- Intervals are percentile intervals of `RESAMPLES` draws from `numpy.random.default_rng(seed)`,
  so the same data and seed always give the same interval. A resample on which the statistic is
  undefined (no spread) is left out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from rubricate.report.memo import RESAMPLES, SEED, Estimate

_CHUNK = 100
Floats = npt.NDArray[np.float64]


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
