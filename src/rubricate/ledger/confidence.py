"""Reputation components and how sure each is: its interval, and its value pulled toward a mean
(pure).

- interval: the 95% Wilson score interval of a component from its value and `n`. The three rates
  (completion, timeliness, dispute) are proportions of `n` jobs. rating_score and rubric_quality
  are means of `n` values in [0, 1]; such a mean's variance is at most μ(1 − μ)/n, that of a
  proportion, so the same interval covers them (conservatively: it is wider than needed when the
  values sit close together).
- shrunk: the component as if `prior` more jobs at the scope's `mean` were counted,
  `(n·value + prior·mean) / (n + prior)`, so few jobs stay near the mean and many outweigh it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

DIGITS = 6
Z = 1.959964
"""The standard normal quantile for a two-sided 95% interval."""


def wilson(value: float | None, n: int) -> tuple[float, float] | None:
    """The 95% Wilson score interval of a share `value` of `n` (None without data)."""
    if value is None or n <= 0:
        return None
    p = min(1.0, max(0.0, value))
    z2 = Z * Z
    scale = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / scale
    half = Z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / scale
    return max(0.0, centre - half), min(1.0, centre + half)


def shrunk(value: float | None, n: int, mean: float | None, prior: float) -> float | None:
    """`value` over `n` pulled toward `mean` by `prior` pseudo-jobs (None without a value)."""
    if value is None:
        return None
    if mean is None or n + prior <= 0:
        return value
    return (n * value + prior * mean) / (n + prior)


@dataclass(frozen=True)
class Component:
    """One reputation component: its value (None without data) and how many items it counts."""

    value: float | None
    n: int


def ranked_components(
    components: dict[str, Component], means: dict[str, Component], prior: float
) -> dict[str, Component]:
    """Each component pulled toward its mean by `prior` pseudo-jobs."""
    return {
        name: Component(shrunk(c.value, c.n, means[name].value, prior), c.n)
        for name, c in components.items()
    }


def component_dict(component: Component) -> dict[str, Any]:
    """A component as `reputation.json` shows it: value, n and interval."""
    interval = wilson(component.value, component.n)
    return {
        "value": round_value(component.value),
        "n": component.n,
        "interval": None if interval is None else [round_value(bound) for bound in interval],
    }


def round_value(value: float | None) -> float | None:
    """A value as `reputation.json` shows it."""
    return None if value is None else round(value, DIGITS)


def undisputed(disputed: int, completed: int) -> Component:
    """dispute_penalty: 1 − disputed / completed."""
    return Component(1.0 - disputed / completed, completed) if completed else Component(None, 0)


def ratio(part: int, whole: int) -> Component:
    """A share of `whole` (no value when it is 0)."""
    return Component(part / whole if whole else None, whole)
