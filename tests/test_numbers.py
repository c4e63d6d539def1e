"""Scores print one way everywhere: at most two decimals, trailing zeros dropped."""

from __future__ import annotations

import pytest

from rubricate.bot.markdown import number
from rubricate.evidence.render import format_score
from rubricate.numbers import decimal_text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (4.0, "4"),
        (3.456, "3.46"),
        (0.5, "0.5"),
        (1_000_000.0, "1000000"),
        (-0.001, "0"),
        (2.1, "2.1"),
    ],
)
def test_the_bot_and_the_report_print_a_score_alike(value: float, text: str) -> None:
    assert decimal_text(value) == number(value) == format_score(value) == text


def test_more_digits_when_asked() -> None:
    assert decimal_text(0.12345, 4) == "0.1235"
