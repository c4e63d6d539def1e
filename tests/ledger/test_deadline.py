"""A job's deadline: its own milestone, else its linked issue's, else its opening plus the SLA."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from rubricate.ledger.deadline import deadline

OPENED = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
OWN = datetime(2026, 3, 5, tzinfo=timezone.utc)
LINKED = datetime(2026, 3, 9, tzinfo=timezone.utc)


def test_the_own_milestone_comes_first_then_the_linked_issue() -> None:
    assert deadline(OWN, LINKED, OPENED, 24) == OWN
    assert deadline(None, LINKED, OPENED, 24) == LINKED


def test_without_a_milestone_the_sla_counts_from_the_opening() -> None:
    assert deadline(None, None, OPENED, 36) == OPENED + timedelta(hours=36)
    assert deadline(None, None, OPENED, None) is None
    assert deadline(None, None, None, 36) is None
