"""The `duration` format keeps the verdicts jsonschema gave with the isoduration package, without
loading it (or the date library it needs), but refuses exponents and numbers with no
designator; drafts before 2019-09 leave the format unchecked."""

from __future__ import annotations

import hashlib
import importlib.util
import random
import re
import subprocess
import sys
from typing import Any

import pytest
from jsonschema import (
    Draft4Validator,
    Draft6Validator,
    Draft7Validator,
    Draft201909Validator,
    Draft202012Validator,
)

from rubricate.evidence.duration import is_duration
from rubricate.evidence.schema_dialect import FORMATS, format_checker
from tests.evidence.duration_cases import ALPHABET, duration_cases
from tests.evidence.format_verdicts import assert_verdict

OVERFLOWS = ("P1e1000000D", "PT1e1000000S")
"""Numerals the earlier checker failed on (a decimal overflow escaped it): exponents, refused."""

FIXED = [
    ("P1Y2M3DT4H5M6S", True),
    ("P3W", True),
    ("PT0.5S", True),
    ("-P1,5D", True),
    ("+PT1e3H", False),
    ("P0D1W", True),
    ("P-0D1W", True),
    ("P1e-2000000D1W", False),
    ("P1Y2T3H", False),
    ("P1WT1H", True),
    ("P1.M", True),
    ("P.5Y", True),
    ("P1.e5D", False),
    ("P1Y1W", False),
    ("P1W1D", False),
    ("P1D1Y", False),
    ("P1YM", False),
    ("PD", False),
    ("P", False),
    ("PT", False),
    ("P1DT", False),
    ("P1D5", False),
    ("p1d", False),
    ("P1d", False),
    ("1D", False),
    ("+P", False),
    ("P1..2D", False),
    ("P1-2D", False),
    ("P.e5D", False),
    ("P1e99999999999999999999999D", False),
    ("PT1HT2M", False),
    ("PT1H1W", False),
    ("P1T1H", False),
    ("P2020-01-01T10H", False),
    ("P0001-02-03T04:05:06", False),
    ("P9999-12-31T24:00:00", False),  # the earlier checker raised an overflow here
    ("P\u0663D", False),
    ("P1\u00b2D", False),
    *((text, False) for text in OVERFLOWS),
    ("P1D2T3H", False),
    ("P1e2D", False),
]


@pytest.mark.parametrize(("text", "valid"), FIXED)
def test_duration_verdicts(text: str, valid: bool) -> None:
    drafts = (Draft201909Validator, Draft202012Validator)
    assert_verdict(is_duration, "duration", drafts, text, valid)


def test_duration_passes_other_types() -> None:
    assert all(is_duration(value) for value in (1, None, [], {}))


@pytest.mark.parametrize("cls", [Draft4Validator, Draft6Validator, Draft7Validator])
def test_drafts_before_the_duration_format_check_it_too(cls: Any) -> None:
    checker = format_checker(cls)
    assert checker.checkers["duration"][0] is is_duration
    assert not checker.conforms("not a duration", "duration")
    assert checker.conforms("P1D", "duration")


def test_a_number_past_decimal_arithmetics_range_is_a_number_still() -> None:
    assert is_duration("PT" + "9" * 1_000_001 + "S")


def test_a_long_duration_is_judged_whole() -> None:
    assert is_duration("PT" + "1" * 50_000 + "S")
    assert not is_duration("PT" + "1" * 50_000 + "S ")


# sha256 of the verdicts on `duration_cases(200)` without OVERFLOWS, a digit a string ("1"
# valid). The earlier checker (isoduration 20.11.0) took 50 more of them, each with an
# exponent or a number with no designator before `T`; it agreed on every other string.
VERDICTS = "106a0bddc025867bc40777b468611c6524e4fb6075fee118bb0852ee42cc53aa"
REFUSED = re.compile(r"[0-9.,][eE]|[0-9.,]T")
"""What the earlier checker took and this one refuses: an exponent, a number before `T`."""


def recorded_cases() -> list[str]:
    return [text for text in duration_cases(200) if text not in OVERFLOWS]


def test_duration_verdicts_on_generated_strings_are_the_recorded_ones() -> None:
    cases = recorded_cases()
    digits = "".join(str(int(is_duration(text))) for text in cases)
    assert (len(digits), digits.count("1")) == (2594, 343)
    assert hashlib.sha256(digits.encode()).hexdigest() == VERDICTS


@pytest.mark.skipif(
    importlib.util.find_spec("isoduration") is None,
    reason="isoduration, the earlier checker's package, is not installed",
)
def test_duration_verdicts_differ_from_the_earlier_checker_only_where_meant() -> None:
    stock = Draft202012Validator.FORMAT_CHECKER
    rng = random.Random(3)
    noise = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 9))) for _ in range(20_000)]
    differ = [
        text
        for text in [*recorded_cases(), *duration_cases(1000, seed=11), *noise]
        if text not in OVERFLOWS and stock.conforms(text, "duration") != is_duration(text)
    ]
    assert all(REFUSED.search(text) and not is_duration(text) for text in differ)


DROPPED = ("lark", "rfc3987_syntax", "isoduration", "arrow")
"""Packages jsonschema imports when installed, no longer dependencies: an IRI grammar built for
seconds at import, and a duration parser with the date library it needs."""


def test_checking_formats_loads_no_dropped_package() -> None:
    present = [name for name in DROPPED if importlib.util.find_spec(name) is not None]
    if present:
        pytest.skip(f"{present} installed here, and jsonschema imports them when they are")
    code = (
        "import sys\n"
        "from rubricate.evidence.schema_dialect import format_checker, FORMATS\n"
        "from jsonschema import Draft202012Validator\n"
        "checker = format_checker(Draft202012Validator)\n"
        "assert set(FORMATS) <= set(checker.checkers)\n"
        "assert checker.conforms('P1D', 'duration') and not checker.conforms('P', 'duration')\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {DROPPED!r}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_formats_list_holds_the_duration_format() -> None:
    assert "duration" in FORMATS
