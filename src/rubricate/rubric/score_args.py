"""Parse `ID=VALUE` score arguments against a rubric (pure: no I/O).

VALUE is a number, `true`/`false` or `null`; ID is a criterion id or a unique prefix of one.
Every problem is a `ScoreError` that names the id and the values it accepts. `read_value` is
the one grammar of a score value, shared by the command line and the bot's slash commands:
an ASCII decimal number (`4`, `3.5`, `-1`, `.5`; no exponent, no other digits), `true`/`yes`,
`false`/`no`, or `null`/`n/a`, in any case.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rubricate.errors import ScoreError
from rubricate.rubric.model import Rubric, ScoreValue
from rubricate.rubric.scoring import allowed_range, check, resolve_criterion_id

_WORDS: dict[str, ScoreValue] = {
    "true": True,
    "yes": True,
    "false": False,
    "no": False,
    "null": None,
    "n/a": None,
}
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)", re.ASCII)


def read_value(text: str) -> ScoreValue:
    """A score value in the one grammar of the CLI and the bot; `ScoreError` when it is not."""
    word = text.strip().lower()
    if word in _WORDS:
        return _WORDS[word]
    if _NUMBER.fullmatch(word):
        return float(word)
    raise ScoreError(f"{text!r} is not a number, true/false or null")


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
            value = read_value(raw)
        except ScoreError:
            expected = allowed_range(rubric, rubric.criterion(criterion_id))
            raise ScoreError(
                f"{criterion_id}: {raw!r} is not a number; expected {expected}"
            ) from None
        scores[criterion_id] = check(rubric, criterion_id, value)
    return scores
