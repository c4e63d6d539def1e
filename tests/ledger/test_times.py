"""`read_time` reads every time's text (the fold cache's rows, canonical lines, payloads) and
`in_utc` puts an aware time in UTC for the canonical reader and the model alike."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from rubricate.ledger.times import in_utc, read_time

PLUS_TWO = timezone(timedelta(hours=2))


def test_a_time_reads_with_its_offset_and_z_is_utc_itself() -> None:
    assert read_time("2026-03-04T07:06:07+02:00").tzinfo == PLUS_TWO
    assert read_time("2026-03-04T05:06:07Z").tzinfo is timezone.utc
    assert read_time("2026-03-04T05:06:07.250Z").microsecond == 250_000


@pytest.mark.parametrize(
    ("text", "said"),
    [("2026-03-04T05:06:07", "without a timezone"), ("yesterday", "isoformat"), ("", "isoformat")],
)
def test_a_text_without_a_timezone_or_not_a_time_is_refused(text: str, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        read_time(text)


def test_what_is_not_text_is_no_time() -> None:
    with pytest.raises(AttributeError):
        read_time(None)  # type: ignore[arg-type]


def test_in_utc_keeps_a_utc_time_and_moves_any_other() -> None:
    utc = datetime(2026, 3, 4, 5, 6, 7, tzinfo=timezone.utc)
    assert in_utc(utc) is utc
    moved = in_utc(datetime(2026, 3, 4, 7, 6, 7, tzinfo=PLUS_TWO))
    assert moved == utc
    assert moved.tzinfo is timezone.utc
    with pytest.raises(OverflowError):
        in_utc(datetime(1, 1, 1, 0, 30, tzinfo=PLUS_TWO))
