"""How numbers are printed for people: one rule for scores, totals and bars; and the clamp of
normalized scores (pure)."""

from __future__ import annotations


def decimal_text(value: float, digits: int = 2) -> str:
    """`value` with at most `digits` decimals, trailing zeros dropped: `3.45`, `4`, `1000000`."""
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def clamp01(value: float) -> float:
    """Clamp to [0, 1], as reputation uses normalized scores."""
    return min(1.0, max(0.0, value))
