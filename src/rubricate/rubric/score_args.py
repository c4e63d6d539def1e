"""Parse `ID=VALUE` score arguments against a rubric (pure: no I/O).

VALUE is a number, `true`/`false` or `null`; ID is a criterion id or a unique prefix of one.
Every problem is a `ScoreError` that names the id and the values it accepts.
"""

from __future__ import annotations

from collections.abc import Iterable

from rubricate.errors import ScoreError
from rubricate.rubric.model import Rubric, ScoreValue
from rubricate.rubric.scoring import allowed_range, check_score, resolve_criterion_id

_WORDS: dict[str, ScoreValue] = {"true": True, "false": False, "null": None}


def parse_value(text: str) -> ScoreValue:
    """A score value from text: a number, `true`, `false` or `null` (any case)."""
    word = text.strip().lower()
    if word in _WORDS:
        return _WORDS[word]
    try:
        return float(word)
    except ValueError:
        raise ScoreError(f"{text!r} is not a score: use a number, true, false or null") from None


def parse_scores(rubric: Rubric, items: Iterable[str]) -> dict[str, ScoreValue]:
    """Checked scores by exact criterion id, from `ID=VALUE` items."""
    scores: dict[str, ScoreValue] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name.strip():
            raise ScoreError(f"expected ID=VALUE, got {item!r}")
        criterion_id = resolve_criterion_id(rubric, name.strip())
        if criterion_id in scores:
            raise ScoreError(f"{criterion_id} is scored twice")
        try:
            value = parse_value(raw)
        except ScoreError:
            expected = allowed_range(rubric, rubric.criterion(criterion_id))
            raise ScoreError(
                f"{criterion_id}: {raw!r} is not a score; expected {expected}"
            ) from None
        scores[criterion_id] = check_score(rubric, criterion_id, value)
    return scores
