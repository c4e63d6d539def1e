"""The scores a judge may give each criterion, and the bars derived from them (pure: no I/O).

- points scales (Agora 1-5): every whole number from min to max;
- checklists: 0 or 1; a continuous criterion (an AgentV free-form grader) on a checklist:
  0, 0.1, ..., 1, as AgentV's judge gives one 0-1 score;
- analytic (0-10): the criterion's `score_ranges` lower bounds, else 0..10;
- open scales (axes): every whole number from min up to a ceiling above the top anchor
  (`judge.open_scale_ceiling`, default 150), so the judge can score work beyond the anchors.
"""

from __future__ import annotations

import math

from rubricate.rubric.model import TOLERANCE, Criterion, Rubric, normalize

EVIDENCE_BAR = 0.75
"""A normalized score at or above this needs a verbatim quote (4 on a 1-5 scale)."""
DISAGREEMENT_SHARE = 0.5
"""The judge stays within this share of the scale's range of the heuristic (2 on 1-5)."""
_MAX_WHOLE_LEVELS = 101
CONTINUOUS_STEPS = 10
"""A continuous 0-1 criterion is offered to the judge in tenths."""
OPEN_CEILING = 150
"""The highest score on an open scale unless `judge.open_scale_ceiling` says otherwise."""


def allowed_scores(
    rubric: Rubric, criterion: Criterion, ceiling: float = OPEN_CEILING
) -> tuple[float, ...]:
    """The scores the judge may choose for a criterion, ascending (null not included)."""
    scale = rubric.scale
    if scale.binary and criterion.continuous:
        return tuple(step / CONTINUOUS_STEPS for step in range(CONTINUOUS_STEPS + 1))
    if scale.binary:
        return (0.0, 1.0)
    if scale.kind == "analytic":
        lows = tuple(float(r.low) for r in criterion.score_ranges)
        return tuple(sorted(set(lows))) if lows else _whole_numbers(0.0, 10.0)
    if is_open(rubric):
        return _whole_numbers(scale.min, max(ceiling, scale.max))
    if not _whole_range_fits(scale.min, scale.max):
        anchors = tuple(sorted({a.score for a in criterion.anchors}))
        return anchors or _whole_numbers(scale.min, scale.max)
    return _whole_numbers(scale.min, scale.max)


def is_open(rubric: Rubric) -> bool:
    """True for an open scale (axes): scores above the top anchor are allowed."""
    return rubric.scale.open or rubric.scale.kind == "open"


def needs_quote(rubric: Rubric, value: float) -> bool:
    """True when a score is high enough that it must be backed by a verbatim quote."""
    return normalize(rubric.scale, value) >= EVIDENCE_BAR - TOLERANCE


def evidence_cap(rubric: Rubric, criterion: Criterion) -> float:
    """The highest allowed score that needs no quote (3 on a 1-5 scale, 74 on 0-100+)."""
    below = [v for v in allowed_scores(rubric, criterion) if not needs_quote(rubric, v)]
    return max(below) if below else rubric.scale.min


def disagreement_bound(rubric: Rubric) -> float:
    """How far the judge may stray from a heuristic score, in raw scale units."""
    return DISAGREEMENT_SHARE * (rubric.scale.max - rubric.scale.min)


def nearest_allowed(
    rubric: Rubric, criterion: Criterion, low: float, high: float, value: float
) -> float:
    """The allowed score within [low, high] closest to `value` (ties go to the lower score)."""
    inside = [
        v for v in allowed_scores(rubric, criterion) if low - TOLERANCE <= v <= high + TOLERANCE
    ]
    if not inside:
        return min(max(value, low), high)
    return min(inside, key=lambda v: (abs(v - value), v))


def as_json_number(value: float) -> int | float:
    """A whole float as an int, so schemas and prompts read `4`, not `4.0`."""
    return int(value) if float(value).is_integer() else value


def _whole_range_fits(low: float, high: float) -> bool:
    return float(low).is_integer() and float(high).is_integer() and high - low < _MAX_WHOLE_LEVELS


def _whole_numbers(low: float, high: float) -> tuple[float, ...]:
    start, stop = math.ceil(low), math.floor(high)
    return tuple(float(v) for v in range(start, stop + 1))
