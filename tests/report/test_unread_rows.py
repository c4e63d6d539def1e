"""A job row kept by the report's state is parsed only when one of its fields is used: its
author alone for the author pages' index, and its text written again as it was read."""

from __future__ import annotations

import json
import pickle
from typing import Any

import pytest

from rubricate.report.kept_json import KeptRow, UnreadRow, canonical, rows_for_writing

TEXT = '{"author":"b\\u00e9a","gate":"passed","pr":3,"repo":"o/r"}'


def _parsed(row: UnreadRow) -> bool:
    return dict.__len__(row) > 0


def test_its_author_is_read_without_parsing_the_row() -> None:
    row = UnreadRow(TEXT)
    assert row["author"] == "béa"
    assert not _parsed(row)
    assert canonical(rows_for_writing([row, {"author": "c", "pr": 1}])) == (
        "[" + TEXT + ',{"author":"c","pr":1}]'
    )
    assert not _parsed(row)


def test_it_reads_as_the_dict_of_its_text_once_a_field_is_used() -> None:
    value: dict[str, Any] = {"author": "béa", "gate": "passed", "pr": 3, "repo": "o/r"}
    row = UnreadRow(TEXT)
    assert row["pr"] == 3
    assert _parsed(row)
    for made in (
        UnreadRow(TEXT) == value,
        value == UnreadRow(TEXT),
        {**UnreadRow(TEXT)} == value,
        dict(UnreadRow(TEXT)) == value,
        sorted(UnreadRow(TEXT).items()) == sorted(value.items()),
        len(UnreadRow(TEXT)) == 4,
        "gate" in UnreadRow(TEXT),
        UnreadRow(TEXT).get("state") is None,
        list(UnreadRow(TEXT)) == list(value),
    ):
        assert made
    sent = pickle.loads(pickle.dumps(UnreadRow(TEXT)))
    assert isinstance(sent, KeptRow)
    assert sent == value
    assert sent.text == TEXT


def test_a_row_without_an_author_first_is_parsed_for_it() -> None:
    row = UnreadRow('{"a":1,"author":"x"}')
    assert row["author"] == "x"
    assert _parsed(row)
    with pytest.raises(KeyError):
        UnreadRow('{"pr":1}')["author"]
    with pytest.raises(ValueError, match="JSON object"):
        UnreadRow("[1]")["pr"]


@pytest.mark.parametrize(
    "login", ["carol", "b\u00e9a", 'say "hi"', "back\\slash", "\u2028", "dependabot[bot]", None, 7]
)
def test_its_author_read_alone_is_the_one_parsing_gives(login: object) -> None:
    text = canonical({"author": login, "pr": 1})
    assert UnreadRow(text)["author"] == json.loads(text)["author"]
