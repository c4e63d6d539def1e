"""Ledger lines: parsing, located problems, ids and validation messages."""

from __future__ import annotations

import json

import pytest

from rubricate.ledger.codec import (
    LedgerError,
    append_lines,
    event_from_dict,
    git_blob_id,
    parse_ledger,
    shard_path,
)
from rubricate.ledger.event import Event, natural_key
from tests.ledger.factory import event

SHARD = "ledger/2024-03.jsonl"


def _text(*events: Event) -> str:
    return "".join(e.to_line() + "\n" for e in events)


def test_lines_are_canonical_and_round_trip() -> None:
    one = event("rated", 1, 0, "c:1", rating=4)
    line = one.to_line()
    assert list(json.loads(line)) == sorted(json.loads(line))
    assert Event.model_validate_json(line) == one
    assert '"at":"2024-03-01T12:00:00Z"' in line.replace(" ", "")


def test_corrupt_lines_are_reported_with_their_location_and_kept_out() -> None:
    good = event("first_submission", 1, 0, "a")
    text = (
        _text(good) + "{not json\n\n" + '{"kind": "nope"}\n' + _text(event("abandoned", 1, 1, "b"))
    )
    parsed = parse_ledger({SHARD: text, "README.md": "ignored"})
    assert [e.kind for e in parsed.events] == ["first_submission", "abandoned"]
    assert [(p.file, p.line) for p in parsed.corrupt] == [(SHARD, 2), (SHARD, 4)]
    assert str(parsed.corrupt[0]).startswith(f"{SHARD}:2: not JSON")
    assert "kind" in parsed.corrupt[1].message


def test_duplicate_ids_keep_the_first_and_are_reported() -> None:
    one = event("first_submission", 1, 0, "a")
    parsed = parse_ledger({SHARD: _text(one, one)})
    assert parsed.events == (one,)
    assert [(p.line, p.message) for p in parsed.duplicates] == [(2, f"duplicate id {one.id}")]


def test_events_in_the_wrong_shard_are_reported_but_counted() -> None:
    one = event("first_submission", 1, 0, "a")
    parsed = parse_ledger({"ledger/2023-01.jsonl": _text(one)})
    assert parsed.events == (one,)
    assert "belongs in ledger/2024-03.jsonl" in parsed.misplaced[0].message


def test_shards_are_named_by_utc_month_and_hashed_like_git() -> None:
    one = event("first_submission", 1, 0, "a")
    assert shard_path(one.at) == SHARD
    assert git_blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"
    assert parse_ledger({SHARD: _text(one)}).shards == {SHARD: git_blob_id(_text(one).encode())}


def test_append_lines_adds_a_missing_final_newline_first() -> None:
    one = event("first_submission", 1, 0, "a")
    assert append_lines("{}", [one]) == "{}\n" + one.to_line() + "\n"
    assert append_lines("", [one]) == one.to_line() + "\n"


def test_event_from_dict_fills_the_natural_key_and_explains_errors() -> None:
    raw = json.loads(event("rated", 3, 0, "comment:9#0", rating=5).to_line())
    del raw["id"]
    made = event_from_dict(raw)
    assert made.id == natural_key("rated", "o/r", 3, 1, "comment:9#0")
    raw["id"] = "given-id"
    assert event_from_dict(raw).id == "given-id"
    with pytest.raises(LedgerError, match="pr: Input should be greater than or equal to 1"):
        event_from_dict({**raw, "pr": 0})
    with pytest.raises(LedgerError, match="'rated' event needs a rating"):
        event_from_dict({k: v for k, v in raw.items() if k != "rating"})
    with pytest.raises(LedgerError, match=r"at: .*timezone"):
        event_from_dict({**raw, "at": "2024-03-01T12:00:00"})
    with pytest.raises(LedgerError, match="must be a JSON object"):
        event_from_dict([1, 2])  # type: ignore[arg-type]


def test_the_event_json_schema_requires_a_rating_on_rated_events() -> None:
    schema = Event.model_json_schema()
    assert {
        "if": {"properties": {"kind": {"const": "rated"}}},
        "then": {"required": ["rating"]},
    } in schema["allOf"]
