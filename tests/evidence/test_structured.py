"""Parsing JSON, YAML and TOML with source lines for errors and JSON pointers."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rubricate.errors import ParseProblem
from rubricate.evidence.structured import (
    check_syntax,
    json_dialect_removed,
    json_pointer_line,
    parse_structured,
)

JSON_DOC = """{
  "name": "x",
  "items": [
    {"id": 1},
    {
      "id": "two",
      "a/b": {"~k": true}
    }
  ],
  "empty": {}
}
"""


@pytest.mark.parametrize(
    ("pointer", "line"),
    [
        ([], 1),
        (["name"], 2),
        (["items"], 3),
        (["items", 0], 4),
        (["items", 0, "id"], 4),
        (["items", 1], 5),
        (["items", 1, "id"], 6),
        (["items", 1, "a/b", "~k"], 7),
        (["empty"], 10),
        (["items", 5], None),
        (["nope"], None),
        (["name", "deeper"], None),
    ],
)
def test_json_pointer_lines(pointer: list[str | int], line: int | None) -> None:
    assert json_pointer_line(JSON_DOC, pointer) == line


def test_json_syntax_error_has_a_line() -> None:
    with pytest.raises(ParseProblem) as caught:
        parse_structured("json", '{\n  "a": 1,\n  "b": \n}\n', "x.json")
    assert caught.value.line == 4
    assert caught.value.message.startswith("invalid JSON")


def test_json_rejects_nan() -> None:
    problem = check_syntax("json", '{"a": NaN}')
    assert problem is not None
    assert "NaN" in problem.message


def test_yaml_lines_and_dates() -> None:
    parsed = parse_structured(
        "yaml", "name: x\nwhen: 2024-01-02\nlist:\n  - a\n  - b: 1\n", "x.yml"
    )
    assert parsed.data == {"name": "x", "when": "2024-01-02", "list": ["a", {"b": 1}]}
    assert parsed.line_of(["list", 1, "b"]) == 5
    assert parsed.line_of(["when"]) == 2


def test_yaml_errors() -> None:
    with pytest.raises(ParseProblem) as caught:
        parse_structured("yaml", "a: 1\na: 2\n", "x.yml")
    assert caught.value.line == 2
    assert "duplicate" in caught.value.message
    problem = check_syntax("yaml", "a: [1, 2\nb: 3\n")
    assert problem is not None
    assert problem.line is not None
    assert check_syntax("yaml", "a: 1\n---\nb: !Ref thing\n") is None


def test_toml_errors_and_approximate_lines() -> None:
    problem = check_syntax("toml", 'a = 1\nb = "unterminated\n')
    assert problem is not None
    assert problem.line == 2
    assert "line" not in problem.message
    parsed = parse_structured("toml", "[tool]\nname = 'x'\nwhen = 2024-01-01\n", "x.toml")
    assert parsed.data == {"tool": {"name": "x", "when": "2024-01-01"}}
    assert parsed.line_of(["tool", "name"]) == 2
    assert parsed.line_of(["tool"]) == 1
    assert parsed.line_of(["missing"]) is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4)
    ),
    max_leaves=20,
)


def _paths(value: Any, prefix: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _paths(child, (*prefix, index))
    return found


@settings(max_examples=150, deadline=None)
@given(json_values)
def test_every_pointer_lands_on_its_value(value: Any) -> None:
    text = json.dumps(value, indent=1)
    lines = text.splitlines()
    for path in _paths(value):
        line = json_pointer_line(text, path)
        assert line is not None
        here = lines[line - 1].strip().rstrip(",")
        first = json.dumps(_value_at(value, path), indent=1).splitlines()[0].strip()
        if path and isinstance(path[-1], str):
            first = f"{json.dumps(path[-1])}: {first}"
        assert here == first
    assert all(json_pointer_line(json.dumps(value), p) == 1 for p in _paths(value))


def _value_at(value: Any, path: tuple[str | int, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("off", "off"),
        ("on", "on"),
        ("yes", "yes"),
        ("No", "No"),
        ("y", "y"),
        ("true", True),
        ("FALSE", False),
        ("~", None),
        ("null", None),
        ("", None),
        ("012", 12),
        ("0o12", 10),
        ("0x1F", 31),
        ("-7", -7),
        ("1_000", "1_000"),
        ("1:30", "1:30"),
        ("1.5e3", 1500.0),
        ("-.5", -0.5),
        (".inf", float("inf")),
        ("2024-01-01", "2024-01-01"),
        ("'off'", "off"),
    ],
)
def test_yaml_deliverables_are_read_as_yaml_1_2(text: str, value: Any) -> None:
    assert parse_structured("yaml", f"level: {text}\n", "a.yaml").data == {"level": value}


def test_yaml_1_2_keeps_merge_keys_and_lines() -> None:
    parsed = parse_structured("yaml", "base: &b {x: 1}\nthis:\n  <<: *b\n  on: 2\n", "a.yaml")
    assert parsed.data["this"] == {"x": 1, "on": 2}
    assert parsed.line_of(["this", "on"]) == 4


def test_a_bom_may_start_a_document_prefix_after_comments() -> None:
    text = "# editor: schema=x.json\n\ufeffa: 1\n...\n# next\n\ufeff---\nb: 2\n"
    first = "# editor: schema=x.json\n\ufeffname: a\nbpm: 148\n"
    parsed = parse_structured("yaml", first, "a.yaml")
    assert parsed.data == {"name": "a", "bpm": 148}
    assert parsed.line_of(("bpm",)) == 3
    assert check_syntax("yaml", text) is None


def test_the_json_dialect_drops_comments_and_trailing_commas_but_not_string_text() -> None:
    text = '{\n  // note\n  "a": "x // y, }",  /* b\n c */\n  "b": [1, 2,],\n}\n'
    plain = json_dialect_removed(text)
    assert json.loads(plain) == {"a": "x // y, }", "b": [1, 2]}
    assert plain.count("\n") == text.count("\n")
    assert check_syntax("json", json_dialect_removed('{"a": {oops,}')) is not None
