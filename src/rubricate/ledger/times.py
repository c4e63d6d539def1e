"""Times as the ledger and GitHub write them, RFC 3339 text, read and put in UTC (pure).

The one reader of a time's text (`read_time`: the fold cache reads three or four a job, the
canonical event reader one or two an event, GitHub's payloads theirs) and the one step that puts
an aware time in UTC (`in_utc`), for the canonical reader and the pydantic model alike.
"""

from __future__ import annotations

from datetime import datetime, timezone

_from_iso = datetime.fromisoformat
"""(One lookup, not two, a time.)"""


def read_time(text: str) -> datetime:
    """An RFC 3339 time (`...Z` or with an offset, as GitHub and `event.rfc3339` write it) as an
    aware datetime, its offset kept: the one reader of a time's text. ValueError when it is not
    a time or has no timezone (and an AttributeError when it is not text)."""
    parsed = _from_iso(text.replace("Z", "+00:00"))  # (Python 3.10 reads no `Z`)
    if parsed.tzinfo is None:
        raise ValueError(f"timestamp without a timezone: {text!r}")
    return parsed


def in_utc(value: datetime) -> datetime:
    """An aware time in UTC (itself when it is already); OverflowError when it is out of range
    there."""
    return value if value.tzinfo is timezone.utc else value.astimezone(timezone.utc)
