"""Free text from the ledger (an override's reason, a dispute's feedback) as the report shows
it: on one line, and cut with a note (pure)."""

from __future__ import annotations

TEXT_LIMIT = 500
"""Free text is shown up to this many characters; report.json holds the whole of it."""


def shorten(text: object, limit: int = TEXT_LIMIT) -> str:
    """Free text on one line (every run of whitespace, CR and LF included, is one space), cut at
    `limit` characters with a note saying how much more report.json holds."""
    flat = " ".join(str(text).split())
    if len(flat) <= limit:
        return flat
    return f"{flat[:limit]}… ({len(flat) - limit:,} more characters in report.json)"
