"""The `date-time` and `time` formats: RFC 3339 section 5.6, leap seconds included (pure).

`date-time` is `full-date "T" full-time`, `time` (drafts 7 on) is `full-time`: a time with
its offset (`Z` or `+hh:mm`). `T` and `Z` may be lower case, digits are ASCII digits only,
the day must exist in its month, and nothing may follow (not even a newline). A second of 60
is a leap second, allowed where the time, moved to UTC by its offset, is 23:59 (any date: the
dates that had one are not checked). jsonschema's checker (rfc3339-validator) refused every
leap second, a wrong fail of a valid time; it accepted a trailing newline.
Rules: DESIGN.md §4 (the pure core).
"""

from __future__ import annotations

import re
from calendar import monthrange

FULL_TIME = (
    r"(?P<hour>[0-9]{2}):(?P<minute>[0-9]{2}):(?P<second>[0-9]{2})(?:\.[0-9]+)?"
    r"(?:[Zz]|(?P<sign>[+-])(?P<off_hour>[0-9]{2}):(?P<off_minute>[0-9]{2}))"
)
DATE_TIME = re.compile(
    rf"(?P<year>[0-9]{{4}})-(?P<month>[0-9]{{2}})-(?P<day>[0-9]{{2}})[Tt]{FULL_TIME}"
)
TIME = re.compile(FULL_TIME)
MINUTES_PER_DAY = 24 * 60
LAST_MINUTE = MINUTES_PER_DAY - 1
"""23:59, the minute (in UTC) that a leap second ends."""


def is_date_time(instance: object) -> bool:
    """The `date-time` format (other types pass)."""
    if not isinstance(instance, str):
        return True
    found = DATE_TIME.fullmatch(instance)
    if found is None:
        return False
    year, month, day = (int(found[name]) for name in ("year", "month", "day"))
    if not 1 <= month <= 12 or not 1 <= day <= monthrange(year, month)[1]:
        return False
    return _time_fits(found)


def is_time(instance: object) -> bool:
    """The `time` format of drafts 7 to 2020-12 (other types pass)."""
    if not isinstance(instance, str):
        return True
    found = TIME.fullmatch(instance)
    return found is not None and _time_fits(found)


def _time_fits(found: re.Match[str]) -> bool:
    hour, minute, second = (int(found[name]) for name in ("hour", "minute", "second"))
    off_hour = int(found["off_hour"] or 0)
    off_minute = int(found["off_minute"] or 0)
    if hour > 23 or minute > 59 or second > 60 or off_hour > 23 or off_minute > 59:
        return False
    if second < 60:
        return True
    offset = (off_hour * 60 + off_minute) * (-1 if found["sign"] == "-" else 1)
    return (hour * 60 + minute - offset) % MINUTES_PER_DAY == LAST_MINUTE
