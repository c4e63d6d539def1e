"""`date-time` and `time` as RFC 3339 writes them: leap seconds at 23:59 UTC, nothing after."""

from __future__ import annotations

import pytest
from jsonschema import Draft4Validator, Draft7Validator, Draft202012Validator

from rubricate.evidence.rfc3339 import is_date_time, is_time
from rubricate.evidence.schema_dialect import format_checker
from tests.evidence.format_verdicts import assert_verdict

DATE_TIMES = [
    ("1985-04-12T23:20:50.52Z", True),
    ("1996-12-19T16:39:57-08:00", True),
    ("1990-12-31t23:59:60z", True),
    ("1998-12-31T23:59:60Z", True),
    ("1998-12-31T15:59:60.123-08:00", True),
    ("1998-12-31T01:29:60+01:30", True),
    ("2024-02-29T12:00:00Z", True),
    ("0000-02-29T00:00:00Z", True),
    ("1998-12-31T23:59:61Z", False),
    ("1998-12-31T23:58:60Z", False),
    ("1998-12-31T22:59:60Z", False),
    ("1998-12-31T23:59:60+01:00", False),
    ("2016-12-31T24:59:60+01:00", False),
    ("1990-12-31T15:60:00Z", False),
    ("1990-12-31T10:00:00+10:60", False),
    ("1990-12-31T10:00:00+24:00", False),
    ("2023-02-29T12:00:00Z", False),
    ("2024-13-01T12:00:00Z", False),
    ("2024-00-10T12:00:00Z", False),
    ("2024-01-00T12:00:00Z", False),
    ("2024-01-01T12:00:00", False),
    ("2024-01-01 12:00:00Z", False),
    ("2024-01-01T12:00:00.Z", False),
    ("1963-06-19T08:30:06.283185Z\n", False),
    ("1963-06-1\u09eaT00:00:00Z", False),
    ("", False),
]
TIMES = [
    ("08:30:06Z", True),
    ("08:30:06.283185+01:00", True),
    ("23:59:60Z", True),
    ("23:59:60+00:00", True),
    ("15:59:60-08:00", True),
    ("00:29:60-23:30", True),
    ("23:29:60+23:30", True),
    ("22:59:60Z", False),
    ("23:59:60+01:00", False),
    ("23:59:60-00:30", False),
    ("00:60:00Z", False),
    ("01:02:03+00:60", False),
    ("08:30:06", False),
    ("08:30:06 PST", False),
    ("8:30:06Z", False),
    ("08:30:06Z\n", False),
]


@pytest.mark.parametrize(("text", "valid"), DATE_TIMES)
def test_date_time(text: str, valid: bool) -> None:
    drafts = (Draft4Validator, Draft7Validator, Draft202012Validator)
    assert_verdict(is_date_time, "date-time", drafts, text, valid)


@pytest.mark.parametrize(("text", "valid"), TIMES)
def test_time(text: str, valid: bool) -> None:
    assert_verdict(is_time, "time", (Draft7Validator, Draft202012Validator), text, valid)


def test_other_types_pass() -> None:
    assert all(is_date_time(value) and is_time(value) for value in (1, None, [], {}))


def test_draft_4_has_no_time_format() -> None:
    assert format_checker(Draft4Validator).conforms("not a time", "time")
