"""Kappa and Spearman against reference implementations; seeded, reproducible intervals."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import spearmanr
from sklearn.metrics import cohen_kappa_score

from rubricate.report.stats import kappa_estimate, kappa_table, spearman, spearman_estimate

ratings = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=80)


def _table(pairs: list[tuple[int, int]], size: int = 5) -> list[list[int]]:
    table = [[0] * size for _ in range(size)]
    for a, b in pairs:
        table[a][b] += 1
    return table


def _closed_form(pairs: list[tuple[int, int]]) -> float:
    """Quadratic kappa as 1 − mean squared difference / its value under independence."""
    n = len(pairs)
    observed = sum((a - b) ** 2 for a, b in pairs) / n
    expected = sum((a - b) ** 2 for a, _ in pairs for _, b in pairs) / n**2
    return 1 - observed / expected


@settings(max_examples=150, deadline=None)
@given(ratings)
def test_kappa_matches_scikit_learn_and_a_closed_form(pairs: list[tuple[int, int]]) -> None:
    a, b = zip(*pairs, strict=True)
    ours = kappa_table(_table(pairs))
    if set(a) == set(b) and len(set(a)) == 1:
        assert ours is None  # both raters always say the same one thing: undefined
        return
    reference = cohen_kappa_score(a, b, weights="quadratic", labels=list(range(5)))
    assert ours == pytest.approx(reference, abs=1e-9)
    assert ours == pytest.approx(_closed_form(pairs), abs=1e-9)


def test_kappa_of_perfect_agreement_is_one_and_interval_is_seeded() -> None:
    table = [[10, 2, 0], [1, 8, 3], [0, 2, 9]]
    first = kappa_estimate(table, seed=3)
    again = kappa_estimate(table, seed=3)
    other = kappa_estimate(table, seed=4)
    assert first == again
    assert first != other
    assert first.low is not None
    assert first.high is not None
    assert first.low < (first.value or 0) < first.high
    assert kappa_table([[5, 0], [0, 5]]) == pytest.approx(1.0)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 5), st.floats(0, 1)), min_size=3, max_size=60))
def test_spearman_matches_scipy_with_ties(points: list[tuple[int, float]]) -> None:
    x, y = zip(*points, strict=True)
    ours = spearman(list(x), list(y))
    if len(set(x)) == 1 or len(set(y)) == 1:
        assert ours is None
        return
    assert ours == pytest.approx(float(spearmanr(x, y).statistic), abs=1e-9)


def test_spearman_interval_is_reproducible_and_covers_the_estimate() -> None:
    rng = random.Random(1)
    x = [rng.randint(1, 5) for _ in range(300)]
    y = [v + rng.random() * 3 for v in x]
    first = spearman_estimate(x, y, seed=9)
    assert first == spearman_estimate(x, y, seed=9)
    assert first.low is not None
    assert first.high is not None
    assert first.low <= (first.value or 0) <= first.high
    many = [rng.random() for _ in range(300)]  # mostly distinct values: the other resampler
    wide = spearman_estimate(many, y, seed=9)
    assert wide.low is not None
    assert wide.high is not None
    assert wide.low < wide.high


def test_spearman_needs_three_points() -> None:
    assert spearman([1, 2], [2, 1]) is None
    assert spearman_estimate([1, 2], [2, 1]).value is None
