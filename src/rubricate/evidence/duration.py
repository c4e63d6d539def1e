"""The `duration` format (drafts 2019-09 and 2020-12), checked by a small scanner (pure).

The verdicts are those the format checker gave before rubricate checked this format itself
(jsonschema with the isoduration package), but for two of its oddities that no reading of
ISO 8601 allows, which the JSON Schema Test Suite refuses: an exponent (`P1e3D`) and a number
with no designator before `T` (`P1Y2T3H`). The checker's reading stays wider than RFC 3339's
appendix A where ISO 8601 (or its part 2) allows what the RFC's grammar leaves out, kept
here on purpose so that such a duration never fails:
- a number may have a fraction, with `.` or `,` (`PT0.5S`, `PT0,5S`), and a sign (`-P1D`,
  `P-1D`);
- parts may skip one between them (`P1Y2D`, `PT1H2S`);
- a week may follow date parts whose numbers are all zero (`P0D1W`), and a time part may
  follow a week (`P1WT1H`).
A date and time written as such after `P` (`P0001-02-03T04:05:06`) is never a duration.
Rules: DESIGN.md §4 (the pure core).
"""

from __future__ import annotations

import re
from decimal import Context, Decimal, Overflow

NUMERAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")
"""A decimal numeral as the check reads one (`,` already turned into `.`)."""
NUMBER_CHARS = frozenset("+-0123456789.,")
"""The characters a number is gathered from; any other non-letter ends the check."""
DATE_DESIGNATORS = "YMDW"
TIME_DESIGNATORS = "HMS"
LAST_LETTERS = tuple("DMYWHMS")
"""A duration ends with one of these."""
_ARITHMETIC = Context(prec=28, Emax=999999, Emin=-999999)
"""The decimal context the earlier checker computed in (Python's default)."""


def is_duration(instance: object) -> bool:
    """Whether `instance` is a duration; strings only (other types pass, as for every format)."""
    if not isinstance(instance, str):
        return True
    if len(instance) < 2 or not instance.endswith(LAST_LETTERS):
        return False
    body = instance[1:] if instance[0] in "+-" else instance
    if not body.startswith("P"):
        return False
    return _date_part(body[1:])


def _date_part(text: str) -> bool:
    """Designated numbers Y, M, D, W in that order, each at most once, then maybe `T` and a
    time part; a week only after parts that are all zero."""
    designators = DATE_DESIGNATORS
    number = ""
    all_zero = True
    for index, char in enumerate(text):
        if char == "T":
            # a number left before `T` has no designator (also a date written after `P`)
            return not number and index + 1 < len(text) and _time_part(text[index + 1 :])
        if char in NUMBER_CHARS:
            number += char
            continue
        value = _designated(number, char, designators)
        if value is None or (char == "W" and not all_zero):
            return False
        designators = designators[designators.index(char) + 1 :]
        all_zero = all_zero and value == 0
        number = ""
    return True


def _time_part(text: str) -> bool:
    """Designated numbers H, M, S in that order, each at most once."""
    designators = TIME_DESIGNATORS
    number = ""
    for char in text:
        if char in NUMBER_CHARS:
            number += char
            continue
        if _designated(number, char, designators) is None:
            return False
        designators = designators[designators.index(char) + 1 :]
        number = ""
    return True


def _designated(number: str, letter: str, designators: str) -> Decimal | None:
    """The value of `number` written before the designator `letter`, or None when the letter
    is not one of the designators still allowed or the number is not a numeral."""
    if letter not in designators:
        return None
    numeral = number.replace(",", ".")
    if NUMERAL.fullmatch(numeral) is None:
        return None
    try:
        return _ARITHMETIC.plus(Decimal(numeral))
    except Overflow:  # a numeral of a million digits or more: still a number
        return Decimal(1)
