"""The judge's strict response schema, its limits, and the output tokens a reply may take
(pure: no I/O).

The schema is an object keyed by criterion id, each with an enum score (a range of whole
numbers on an open scale), a bounded rationale and bounded quotes, after one more key,
`REPORT_KEY`: the passages of the data that address the reviewer instead of belonging to the
deliverable (`judge/reports.py`). It is part of what the model sees: changing it means bumping
`prompt_text.PROMPT_VERSION`.
"""

from __future__ import annotations

from typing import Any

from rubricate.judge.score_choices import OPEN_CEILING, allowed_scores, as_json_number, is_open
from rubricate.rubric.model import Criterion, Rubric

MAX_RATIONALE_CHARS = 600
"""The rationale's `maxLength` in the response schema (a reply over it is invalid)."""
MAX_QUOTES = 8
MAX_QUOTE_CHARS = 400
PER_CRITERION_TOKENS = (MAX_RATIONALE_CHARS + 3 * MAX_QUOTE_CHARS) // 4 + 40
"""The output tokens one criterion may take: its longest rationale, three of the longest quotes
(about 4 characters a token), and the JSON around them."""
REPORT_KEY = "_addressed_to_reviewer"
"""The reply's key for passages addressed to the reviewer: a leading underscore, which no
criterion id may start with (`rubric/build.py`), so it cannot shadow one."""
MAX_REPORTS = 3
MAX_REPORT_CHARS = 80
"""A passage needs only to be long enough to be located and read (a report's finding shows up
to 120 characters)."""
REPORT_TOKENS = MAX_REPORTS * (MAX_REPORT_CHARS // 4 + 8) + 16
"""The output tokens the reported passages may take: each passage at its longest, at about 4
characters a token as `PER_CRITERION_TOKENS` reads rationales and quotes, with its quotes and
comma, and the key with its brackets. Text in a script that takes more tokens a character can
need more, as a rationale in it can: the reply is then cut and *not assessed*, never passed."""
REPLY_OVERHEAD_TOKENS = 64


def response_schema(
    rubric: Rubric, ids: tuple[str, ...], ceiling: float = OPEN_CEILING
) -> dict[str, Any]:
    """A strict JSON Schema: one object per criterion id with its score (an enum, or a range of
    whole numbers on an open scale), a bounded rationale and bounded quotes; first, the bounded
    passages addressed to the reviewer."""
    properties = {REPORT_KEY: _report_schema()}
    properties |= {cid: _criterion_schema(rubric, rubric.criterion(cid), ceiling) for cid in ids}
    return _object(properties)


def _report_schema() -> dict[str, Any]:
    return {
        "type": "array",
        "items": {"type": "string", "maxLength": MAX_REPORT_CHARS},
        "maxItems": MAX_REPORTS,
    }


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


def max_output_tokens(criteria: int, ceiling: int) -> int:
    """`max_tokens` for a call scoring `criteria` criteria: enough for the longest valid reply,
    never more than `ceiling` (`judge.max_output_tokens`)."""
    longest = REPLY_OVERHEAD_TOKENS + REPORT_TOKENS + criteria * PER_CRITERION_TOKENS
    return max(1, min(ceiling, longest))
