"""Checks that a judge's evidence quotes really appear in what it was shown (pure: no I/O).

Whitespace is collapsed on both sides and diff markers (`+`, `-`, a leading space) are taken
off each line, so a quote of code matches whether or not the model copied the diff prefix.
A quote that is too short, or that itself looks like an injection, is not evidence.
"""

from __future__ import annotations

from collections.abc import Iterable

from rubricate.judge.scan import scan_injection

MIN_QUOTE_CHARS = 12
"""A quote shorter than this (after collapsing whitespace) proves nothing."""


def collapse(text: str) -> str:
    """Runs of whitespace as one space, trimmed."""
    return " ".join(text.split())


def without_diff_markers(text: str) -> str:
    """Patch text as plain lines: hunk headers dropped, one `+`/`-`/space prefix removed."""
    lines = []
    for line in text.splitlines():
        if line.startswith(("@@", "+++ ", "--- ", "diff --git", "index ")):
            continue
        lines.append(line[1:] if line[:1] in ("+", "-", " ") else line)
    return "\n".join(lines)


def verified_quotes(quotes: Iterable[str], corpus: str) -> tuple[str, ...]:
    """The quotes that appear verbatim in `corpus` (an already collapsed text)."""
    return tuple(q for q in quotes if _is_evidence(q, corpus))


def _is_evidence(quote: str, corpus: str) -> bool:
    flat = collapse(quote)
    if len(flat) < MIN_QUOTE_CHARS or scan_injection(quote, "quote"):
        return False
    return flat in corpus or collapse(without_diff_markers(quote)) in corpus
