"""A job's deadline, the one rule the run, catch-up and the reputation fold share (pure: dates
in, a date out). See DESIGN.md for timeliness."""

from __future__ import annotations

from datetime import datetime, timedelta


def deadline(
    own: datetime | None,
    linked: datetime | None,
    opened: datetime | None,
    sla_hours: float | None,
) -> datetime | None:
    """The PR's own milestone's due date, else its linked issue's, else its opening plus the
    configured SLA; None when none of them is known."""
    if own is not None:
        return own
    if linked is not None:
        return linked
    if sla_hours is not None and opened is not None:
        return opened + timedelta(hours=sla_hours)
    return None
