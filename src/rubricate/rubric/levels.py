"""Score levels of a criterion: analytic score ranges and anchors, checked (pure: no I/O).

Score ranges cover the analytic scale 0-10 with no gap and no overlap. They are written as a
mapping of lower bounds (`{0: .., 3: .., 10: ..}`), a mapping of ranges (`{"0-3": ..}`), or a
list of `{score_range: [a, b], outcome}`. Anchors give text for points of the rubric's scale.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from typing import Any

from rubricate.rubric.files import AnchorSpec, RangeSpec
from rubricate.rubric.model import Anchor, Scale, ScoreRange
from rubricate.yamlsource import Loc, Problems

ANALYTIC_MIN = 0
ANALYTIC_MAX = 10
_SCORE = re.compile(r"^\s*(\d+)\s*$")
_RANGE = re.compile(r"^\s*(\d+)\s*-\s*(\d+)\s*$")


@dataclass(frozen=True)
class _Range:
    low: int
    high: int
    text: str
    loc: Loc
    key: bool


def parse_score_ranges(
    spec: dict[Any, str] | list[RangeSpec], loc: Loc, problems: Problems
) -> tuple[ScoreRange, ...]:
    """Check score ranges written in any of the three forms; return them sorted by score."""
    before = len(problems.errors)
    if isinstance(spec, list):
        ranges = _list_ranges(spec, loc)
    elif any(isinstance(key, str) and "-" in key for key in spec):
        ranges = _mapped_ranges(spec, loc, problems)
    else:
        ranges = _lower_bounds(spec, loc, problems)
    for item in ranges:
        _check_range(item, problems)
    if len(problems.errors) == before:
        _check_coverage(ranges, loc, problems)
    return tuple(ScoreRange(low=r.low, high=r.high, text=r.text) for r in sorted(ranges, key=_low))


def _low(item: _Range) -> int:
    return item.low


def _list_ranges(spec: list[RangeSpec], loc: Loc) -> list[_Range]:
    found = []
    for i, item in enumerate(spec):
        low, high = item.score_range
        found.append(_Range(low, high, item.outcome, (*loc, i, "score_range"), False))
    return found


def _mapped_ranges(spec: dict[Any, str], loc: Loc, problems: Problems) -> list[_Range]:
    found = []
    for key, text in spec.items():
        bounds = _range_key(key)
        if bounds is None:
            problems.error((*loc, key), f"score range {key!r} should look like '4-6'", key=True)
            continue
        found.append(_Range(bounds[0], bounds[1], text, (*loc, key), True))
    return found


def _lower_bounds(spec: dict[Any, str], loc: Loc, problems: Problems) -> list[_Range]:
    bounds: dict[int, tuple[str, Any]] = {}
    for key, text in spec.items():
        score = _score_key(key)
        if score is None:
            message = (
                f"score range key {key!r} should be a score from 0 to 10, or a range like '4-6'"
            )
            problems.error((*loc, key), message, key=True)
        elif not ANALYTIC_MIN <= score <= ANALYTIC_MAX:
            message = f"score {score} is outside the analytic scale 0-10"
            problems.error((*loc, key), message, key=True)
        elif score in bounds:
            problems.error((*loc, key), f"score {score} is given twice", key=True)
        else:
            bounds[score] = (text, key)
    ordered = sorted(bounds)
    if ordered and ordered[0] != ANALYTIC_MIN:
        message = f"score ranges must start at 0 (the lowest key is {ordered[0]})"
        problems.error(loc, message, key=True)
    found = []
    for low, nxt in zip(ordered, [*ordered[1:], ANALYTIC_MAX + 1], strict=False):
        text, key = bounds[low]
        found.append(_Range(low, max(low, nxt - 1), text, (*loc, key), True))
    return found


def _score_key(key: Any) -> int | None:
    if isinstance(key, int) and not isinstance(key, bool):
        return key
    match = _SCORE.match(key) if isinstance(key, str) else None
    return int(match.group(1)) if match else None


def _range_key(key: Any) -> tuple[int, int] | None:
    score = _score_key(key)
    if score is not None:
        return score, score
    match = _RANGE.match(key) if isinstance(key, str) else None
    return (int(match.group(1)), int(match.group(2))) if match else None


def _check_range(item: _Range, problems: Problems) -> None:
    if item.low > item.high:
        problems.error(item.loc, f"score range {item.low}-{item.high} is reversed", key=item.key)
    elif item.low < ANALYTIC_MIN or item.high > ANALYTIC_MAX:
        message = f"score range {_show(item)} leaves the analytic scale 0-10"
        problems.error(item.loc, message, key=item.key)
    if not item.text.strip():
        problems.error(item.loc, f"score range {_show(item)} needs a text", key=item.key)


def _check_coverage(ranges: list[_Range], loc: Loc, problems: Problems) -> None:
    ordered = sorted(ranges, key=_low)
    for first, second in itertools.pairwise(ordered):
        if second.low <= first.high:
            shared = range(second.low, min(first.high, second.high) + 1)
            message = (
                f"score ranges {_show(first)} and {_show(second)} overlap "
                f"(scores {', '.join(map(str, shared))})"
            )
            problems.error(second.loc, message, key=second.key)
    covered = {score for r in ranges for score in range(r.low, r.high + 1)}
    missing = [s for s in range(ANALYTIC_MIN, ANALYTIC_MAX + 1) if s not in covered]
    if missing:
        message = f"missing coverage for scores {', '.join(map(str, missing))}"
        problems.error(loc, message, key=True)


def _show(item: _Range) -> str:
    return str(item.low) if item.low == item.high else f"{item.low}-{item.high}"


def parse_anchors(
    spec: dict[Any, str] | list[AnchorSpec], loc: Loc, problems: Problems, scale: Scale
) -> tuple[Anchor, ...]:
    """Check anchors in mapping or list form against the scale; return them sorted by score."""
    anchors: list[tuple[Anchor, Loc, bool]] = []
    if isinstance(spec, dict):
        for key, text in spec.items():
            score = _number_key(key)
            if score is None:
                problems.error((*loc, key), f"anchor key {key!r} should be a score", key=True)
                continue
            anchors.append((Anchor(score=score, what=text.strip()), (*loc, key), True))
    else:
        for i, item in enumerate(spec):
            anchor = Anchor(
                score=item.score,
                label=item.label,
                what=item.what.strip(),
                examples=tuple(item.examples),
            )
            anchors.append((anchor, (*loc, i, "score"), False))
    _check_anchors(anchors, problems, scale)
    return tuple(sorted((a for a, _, _ in anchors), key=lambda a: a.score))


def _number_key(key: Any) -> float | None:
    if isinstance(key, bool) or not isinstance(key, (int, float, str)):
        return None
    try:
        number = float(key)
    except (ValueError, OverflowError):
        return None
    return number if math.isfinite(number) and abs(number) < 1e15 else None


def _check_anchors(
    anchors: list[tuple[Anchor, Loc, bool]], problems: Problems, scale: Scale
) -> None:
    seen: set[float] = set()
    for anchor, loc, key in anchors:
        score = f"{anchor.score:g}"
        if anchor.score in seen:
            problems.error(loc, f"anchor score {score} is given twice", key=key)
        seen.add(anchor.score)
        if not _on_scale(anchor.score, scale):
            problems.error(
                loc, f"anchor score {score} is outside the scale {scale_text(scale)}", key=key
            )
        if not (anchor.label.strip() or anchor.what):
            problems.error(loc, f"anchor {score} needs a label or a `what` text", key=key)


def _on_scale(score: float, scale: Scale) -> bool:
    return scale.min <= score and (scale.open or score <= scale.max)


def scale_text(scale: Scale) -> str:
    """`1-5`, or `0-100+` for an open scale."""
    return f"{scale.min:g}-{scale.max:g}{'+' if scale.open else ''}"
