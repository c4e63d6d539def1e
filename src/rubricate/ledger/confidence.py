"""How sure a reputation is: each component's interval, and its value pulled toward a mean (pure).

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
