"""The trusted half of the prompt: the rubric as instructions, and the response schema (pure).

The system message states the rules and each criterion with its allowed scores, the scores
that need a quote, and the anchor text of each level (never example scores). The schema is
strict: an object keyed by criterion id, each with an enum score, a rationale and quotes.
"""

from __future__ import annotations

from typing import Any, Literal

from rubricate.judge import prompt_text as text
from rubricate.judge.levels import (
    OPEN_CEILING,
    allowed_scores,
    as_json_number,
    is_open,
    needs_quote,
)
from rubricate.judge.reply import MAX_QUOTE_CHARS, MAX_QUOTES, MAX_RATIONALE_CHARS
from rubricate.rubric.model import Criterion, Rubric

Phase = Literal["request", "submission"]


def response_schema(
    rubric: Rubric, ids: tuple[str, ...], ceiling: float = OPEN_CEILING
) -> dict[str, Any]:
    """A strict JSON Schema: one object per criterion id with its score (an enum, or a range of
    whole numbers on an open scale), a bounded rationale and bounded quotes."""
    properties = {cid: _criterion_schema(rubric, rubric.criterion(cid), ceiling) for cid in ids}
    return _object(properties)


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _criterion_schema(rubric: Rubric, criterion: Criterion, ceiling: float) -> dict[str, Any]:
    return _object(
        {
            "score": _score_schema(rubric, criterion, ceiling),
            "rationale": {"type": "string", "maxLength": MAX_RATIONALE_CHARS},
            "evidence": {
                "type": "array",
                "items": {"type": "string", "maxLength": MAX_QUOTE_CHARS},
                "maxItems": MAX_QUOTES,
            },
        }
    )


def _score_schema(rubric: Rubric, criterion: Criterion, ceiling: float) -> dict[str, Any]:
    values = [as_json_number(v) for v in allowed_scores(rubric, criterion, ceiling)]
    if is_open(rubric):
        kinds: Any = ["integer", "null"] if criterion.nullable else "integer"
        return {"type": kinds, "minimum": values[0], "maximum": values[-1]}
    kind = "integer" if all(isinstance(v, int) for v in values) else "number"
    if criterion.nullable:
        return {"type": [kind, "null"], "enum": [*values, None]}
    return {"type": kind, "enum": values}


def system_message(
    rubric: Rubric,
    ids: tuple[str, ...],
    marker: str,
    phase: Phase,
    ceiling: float = OPEN_CEILING,
) -> str:
    """The rules, the phase, and every criterion of `ids` with its levels."""
    criteria = "\n\n".join(_criterion_text(rubric, rubric.criterion(cid), ceiling) for cid in ids)
    return text.SYSTEM.format(
        marker=marker,
        phase_rule=text.PHASE_RULES[phase],
        rubric_id=rubric.id,
        rubric_version=rubric.version,
        criteria=criteria,
    )


def _criterion_text(rubric: Rubric, criterion: Criterion, ceiling: float) -> str:
    allowed = allowed_scores(rubric, criterion, ceiling)
    high = [_num(v) for v in allowed if needs_quote(rubric, v)]
    if is_open(rubric):
        return _open_text(rubric, criterion, allowed, high)
    flags = text.REQUIRED_FLAG if criterion.required else ""
    head = text.CRITERION.format(
        id=criterion.id,
        title=text.TITLE.format(title=criterion.name) if criterion.name else "",
        weight=_num(criterion.weight),
        flags=flags,
        outcome=" ".join(criterion.outcome.split()),
        allowed=", ".join(_num(v) for v in allowed),
        quote_rule=text.QUOTE_RULE.format(values=", ".join(high)) if high else "",
    )
    null_rule = text.NULL_ALLOWED if criterion.nullable else ""
    return head + null_rule + _levels_text(rubric, criterion)


def _open_text(
    rubric: Rubric, criterion: Criterion, allowed: tuple[float, ...], high: list[str]
) -> str:
    """An axis on an open scale: any whole number up to the ceiling, above the top anchor only
    for work beyond it; null, where allowed, only when the axis does not apply."""
    head = text.CRITERION.format(
        id=criterion.id,
        title=text.TITLE.format(title=criterion.name) if criterion.name else "",
        weight=_num(criterion.weight),
        flags=text.REQUIRED_FLAG if criterion.required else "",
        outcome=" ".join(criterion.outcome.split()),
        allowed=text.OPEN_ALLOWED.format(
            low=_num(allowed[0]), top=_num(rubric.scale.max), ceiling=_num(allowed[-1])
        ),
        quote_rule=text.OPEN_QUOTE_RULE.format(value=high[0]) if high else "",
    )
    null_rule = text.OPEN_NULL if criterion.nullable else ""
    return head + null_rule + _levels_text(rubric, criterion)


def _levels_text(rubric: Rubric, criterion: Criterion) -> str:
    if rubric.scale.binary:
        return text.CHECKLIST_LEVELS
    if criterion.score_ranges:
        lines = [
            text.RANGE_LEVEL.format(low=r.low, high=r.high, text=_one_line(r.text))
            for r in sorted(criterion.score_ranges, key=lambda r: r.low)
        ]
        return text.LEVELS_HEADER + "".join(lines)
    if criterion.anchors:
        lines = [
            text.LEVEL.format(score=_num(a.score), text=_anchor_text(a.label, a.what))
            for a in sorted(criterion.anchors, key=lambda a: a.score, reverse=True)
        ]
        return text.LEVELS_HEADER + "".join(lines)
    return ""


def _anchor_text(label: str, what: str) -> str:
    parts = [p for p in (_one_line(label), _one_line(what)) if p]
    return ": ".join(parts) if parts else "(no description)"


def _one_line(value: str) -> str:
    return " ".join(value.split())


def _num(value: float) -> str:
    return str(as_json_number(value))
