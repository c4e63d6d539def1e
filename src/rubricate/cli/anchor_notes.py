"""Notes on scores that fall between a criterion's anchors (pure).

A criterion with anchors describes whole levels (agora-v3: 1 Unusable … 5 Exceeds spec). A score
between two of them (`spec_adherence=3.5`) is allowed, as a reviewer's `/score` allows it, and
scored as given; the command line says so, naming the two levels it lies between, so that a
typo for a whole level is seen.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from rubricate.rubric.model import Anchor, Rubric, ScoreValue


def between_anchors(rubric: Rubric, scores: Mapping[str, ScoreValue]) -> Iterator[str]:
    """One note per score that is not one of its criterion's anchored levels."""
    for criterion in rubric.criteria:
        value = scores.get(criterion.id)
        if isinstance(value, bool) or value is None or not criterion.anchors:
            continue
        levels = sorted(criterion.anchors, key=lambda a: a.score)
        if any(a.score == value for a in levels):
            continue
        below = [a for a in levels if a.score < value]
        above = [a for a in levels if a.score > value]
        if below and above:
            where = f"between the anchors {_name(below[-1])} and {_name(above[0])}"
            yield (
                f"note: {criterion.id}={value:g} lies {where}: it is scored as given "
                f"(the anchors are {', '.join(f'{a.score:g}' for a in levels)})"
            )


def _name(anchor: Anchor) -> str:
    return f"{anchor.score:g} ({anchor.label})" if anchor.label else f"{anchor.score:g}"
