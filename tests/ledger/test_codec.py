"""Ledger lines: parsing, located problems, ids and validation messages."""

from __future__ import annotations

import hashlib
import json

import pytest

from rubricate.errors import LedgerError
from rubricate.ledger.codec import (
    append_lines,
    event_from_dict,
    git_blob_id,
    parse_ledger,
    shard_path,
)
from rubricate.ledger.event import Event
from rubricate.ledger.trust import natural_key
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
    with pytest.raises(LedgerError, match="not the hash of its natural key"):
        event_from_dict(raw)
    with pytest.raises(LedgerError, match="needs a delivery"):
        event_from_dict({k: v for k, v in raw.items() if k != "delivery"})
    with pytest.raises(LedgerError, match="pr: Input should be greater than or equal to 1"):
        event_from_dict({**raw, "pr": 0})
    with pytest.raises(LedgerError, match="'rated' event needs a rating"):
        event_from_dict({k: v for k, v in raw.items() if k != "rating"})
    with pytest.raises(LedgerError, match=r"at: .*timezone"):
        event_from_dict({**raw, "at": "2024-03-01T12:00:00"})
    with pytest.raises(LedgerError, match="must be a JSON object"):
        event_from_dict([1, 2])  # type: ignore[arg-type]


@pytest.mark.parametrize("field", ["pr", "version"])
def test_an_overflowing_number_in_the_natural_key_is_named_not_raised(field: str) -> None:
    raw = json.loads(event("rated", 3, 0, "comment:9#0", rating=5).to_line())
    del raw["id"]
    with pytest.raises(LedgerError, match=f"{field}: Input should be"):
        event_from_dict({**raw, field: float("inf")})


def test_the_event_json_schema_requires_a_rating_on_rated_events() -> None:
    schema = Event.model_json_schema()
    assert {
        "if": {"properties": {"kind": {"const": "rated"}}},
        "then": {"required": ["rating"]},
    } in schema["allOf"]


def test_an_id_reused_by_another_job_is_refused_as_forged() -> None:
    one = event("abandoned", 1, 0, "a")
    reused = event("abandoned", 2, 1, "b").model_copy(update={"id": one.id})
    parsed = parse_ledger({SHARD: _text(one, reused)})
    assert parsed.events == (one,)
    [problem] = parsed.corrupt
    assert problem.line == 2
    assert problem.message.startswith(f"refused: id {one.id[:16]} is not the hash")


RUBRIC = {
    "id": "a",
    "version": "3",
    "scale": {"min": 1, "max": 5},
    "criteria": {"s": {"weight": 1}, "n": {"weight": 1, "nullable": True}},
}


def _scoring(scores: dict[str, object], rubric: object = RUBRIC) -> dict[str, object]:
    raw = json.loads(event("first_submission", 1, 0, "d").to_line())
    return {**raw, "rubric": rubric, "scores": scores}


@pytest.mark.parametrize(
    ("scores", "message"),
    [
        ({"s": 6}, "scores.s: 6 is outside the rubric's scale 1-5"),
        ({"s": 0.5}, "scores.s: 0.5 is outside the rubric's scale 1-5"),
        ({"x": 3}, "scores.x: not a criterion of rubric a v3"),
        ({"s": None}, "scores.s: null is allowed only on a nullable criterion"),
        ({"s": float("nan")}, "scores.s: Input should be a finite number"),
        ({"s": float("inf")}, "scores.s: Input should be a finite number"),
    ],
)
def test_scores_must_fit_the_recorded_rubric(scores: dict[str, object], message: str) -> None:
    with pytest.raises(LedgerError) as caught:
        event_from_dict(_scoring(scores))
    assert str(caught.value) == message


def test_scores_that_fit_are_accepted() -> None:
    fitting = event_from_dict(_scoring({"s": 5.0000000001, "n": None}))
    assert fitting.scores == {"s": 5.0000000001, "n": None}
    assert event_from_dict(_scoring({"s": True})).scores == {"s": True}
    open_scale = {**RUBRIC, "scale": {"min": 0, "max": 100, "open": True}}
    assert event_from_dict(_scoring({"s": 130}, open_scale)).scores == {"s": 130}
    bare = {"id": "a", "version": "3"}
    assert event_from_dict(_scoring({"anything": 99}, bare)).scores == {"anything": 99}


def test_non_finite_numbers_and_empty_scales_are_rejected() -> None:
    base = _scoring({"s": 3})
    with pytest.raises(LedgerError, match="weighted_total: Input should be a finite number"):
        event_from_dict({**base, "weighted_total": float("-inf")})
    with pytest.raises(LedgerError, match="NaN and Infinity are not valid JSON numbers"):
        event_from_dict({**base, "evidence": [{"value": float("nan")}]})
    with pytest.raises(LedgerError, match=r"max \(1\) must be above min \(1\)"):
        event_from_dict(_scoring({}, {**RUBRIC, "scale": {"min": 1, "max": 1}}))
    with pytest.raises(LedgerError, match="weight: Input should be a finite number"):
        event_from_dict(_scoring({}, {**RUBRIC, "criteria": {"s": {"weight": float("inf")}}}))
    line = json.dumps(_scoring({"s": float("nan")}))
    assert "NaN" in line
    parsed = parse_ledger({SHARD: line + "\n"})
    assert parsed.events == ()
    assert "scores.s: Input should be a finite number" in parsed.corrupt[0].message


def test_lines_with_the_same_rubric_share_one_reference_in_its_key_order() -> None:
    lines = [json.dumps(_scoring({"s": 3}) | {"pr": pr}) for pr in (1, 2)]
    reordered = {**RUBRIC, "criteria": dict(reversed(list(RUBRIC["criteria"].items())))}  # type: ignore[attr-defined]
    lines.append(json.dumps(_scoring({"s": 3}, reordered) | {"pr": 3}))
    one, two, three = (Event.model_validate_json(line) for line in lines)
    assert one.rubric is two.rubric
    assert three.rubric == one.rubric
    assert list((three.rubric and three.rubric.criteria) or {}) == ["n", "s"]
    assert Event.model_validate(json.loads(lines[0])).rubric is not one.rubric


@pytest.mark.parametrize("delivery", ["a", 'q"\\', "é日本\n", "\udc80", ""])
def test_the_natural_key_is_the_hash_of_its_json_list(delivery: str) -> None:
    payload = json.dumps(["rated", "o/r", 7, 2, delivery], separators=(",", ":"))
    expected = hashlib.sha256(payload.encode()).hexdigest()
    assert natural_key("rated", "o/r", 7, 2, delivery) == expected
