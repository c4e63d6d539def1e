"""Map a check's value in [0, 1] onto a rubric's scale (pure: arithmetic only).

- Integer scales of at most ten steps (Agora's 1-5, analytic 0-10): `min + round(v * span)`,
  halves rounded up. On 1-5 that is: v < 0.125 -> 1, < 0.375 -> 2, < 0.625 -> 3,
  < 0.875 -> 4, else 5. A check with any error or warning finding is capped one step below
  the top (5 means "no defects").
- Other scales (open 0..100 axes): linear, `min + v * span`, one decimal, and a check with
  defects is capped at 90% of the span.
- Checklists (0/1): satisfied iff v >= 0.7, and never with an error finding.
"""

from __future__ import annotations

import math

from rubricate.rubric.model import TOLERANCE, Scale, clamp01

SATISFIED_AT = 0.7


def to_scale(
    scale: Scale, value: float, *, defects: bool = False, errors: bool = False
) -> float | bool:
    """The score on `scale` for a check value in [0, 1]."""
    fraction = clamp01(value)
    if scale.binary:
        return fraction >= SATISFIED_AT - TOLERANCE and not errors
    span = scale.max - scale.min
    if _integer_steps(scale):
        level = scale.min + math.floor(fraction * span + 0.5 + TOLERANCE)
        return float(min(level, scale.max - 1) if defects else level)
    raw = scale.min + fraction * span
    if defects:
        raw = min(raw, scale.min + 0.9 * span)
    return round(raw, 1)


def _integer_steps(scale: Scale) -> bool:
    span = scale.max - scale.min
    return float(scale.min).is_integer() and float(scale.max).is_integer() and 0 < span <= 10
