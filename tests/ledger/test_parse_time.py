"""`parse_time` reads the times of the ledger and of GitHub's payloads alike."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from rubricate.ledger.event import parse_time, rfc3339


def test_a_utc_time_reads_back_as_written() -> None:
    moment = datetime(2026, 3, 4, 5, 6, 7, tzinfo=timezone.utc)
    assert parse_time(rfc3339(moment)) == moment


def test_an_offset_is_kept_and_none_stays_none() -> None:
    parsed = parse_time("2026-03-04T07:06:07+02:00")
    assert parsed == datetime(2026, 3, 4, 5, 6, 7, tzinfo=timezone.utc)
    assert parse_time(None) is None


def test_a_time_without_a_timezone_is_refused() -> None:
    with pytest.raises(ValueError, match="without a timezone"):
        parse_time("2026-03-04T05:06:07")


def test_rfc3339_writes_utc_to_the_second_with_a_four_digit_year() -> None:
    plus_two = timezone(timedelta(hours=2))
    assert rfc3339(datetime(2026, 3, 4, 7, 6, 7, 999999, tzinfo=plus_two)) == "2026-03-04T05:06:07Z"
    assert rfc3339(datetime(999, 1, 2, 3, 4, 5, tzinfo=timezone.utc)) == "0999-01-02T03:04:05Z"
    assert rfc3339(None) is None
