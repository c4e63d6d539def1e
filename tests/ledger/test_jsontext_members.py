"""`jsontext.members` finds each member's text in what `indented` wrote, and `indented` writes
an object whose text it is given as given: together they rewrite a document keeping the text
of the members that did not change."""

from __future__ import annotations

import json
import random
from typing import Any

from rubricate.ledger.jsontext import indented, members
from tests.ledger.test_jsontext_is_json_dumps import STRINGS, _value


def _walk(text: str, value: Any, start: int, depth: int) -> int:
    """Check every object's members below `value`, written at `start`; how many were seen."""
    if not isinstance(value, dict):
        return 0
    spans = members(text, start, depth)
    assert list(spans) == sorted(value)
    seen = len(spans)
    for key, (begin, end) in spans.items():
        assert text[begin:end] == indented(value[key]).replace("\n", "\n" + "  " * (depth + 1))
        seen += _walk(text, value[key], begin, depth + 1)
    return seen


def test_the_members_of_generated_objects_are_found() -> None:
    chance = random.Random(29)
    seen = 0
    for _ in range(2000):
        value = {key: _value(chance, 1) for key in chance.sample(STRINGS, chance.randint(0, 5))}
        seen += _walk(indented(value), value, 0, 0)
    assert seen > 5000


def test_a_member_whose_key_holds_a_quote_and_a_colon_is_read_whole() -> None:
    value = {'a": {': {"b": 1}, "a": [{"c": "x\n}"}], "z": {}}
    text = indented(value)
    spans = members(text)
    assert list(spans) == ["a", 'a": {', "z"]
    assert text[slice(*spans["z"])] == "{}"
    assert json.loads(text[slice(*spans['a": {'])]) == {"b": 1}


def test_a_known_object_is_written_as_its_text() -> None:
    inner = {"b": [1, 2], "c": {"d": None}}
    value = {"a": inner, "z": 1}
    text = indented(value)
    begin, end = members(text)["a"]
    assert indented(value, {id(inner): text[begin:end]}) == text
    assert indented(value, {id(inner): "{}"}) == text[:begin] + "{}" + text[end:]
