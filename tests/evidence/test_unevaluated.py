"""`unevaluatedProperties` in drafts 2019-09 and 2020-12: what each keyword evaluates."""

from __future__ import annotations

from typing import Any

import pytest

from rubricate.evidence import unevaluated
from rubricate.evidence.deliverable_schemas import compile_schema
from rubricate.evidence.schema_patterns import ecma_regex

DRAFTS = (
    "https://json-schema.org/draft/2019-09/schema",
    "https://json-schema.org/draft/2020-12/schema",
)


def errors(draft: str, schema: dict[str, Any], instance: Any) -> list[str]:
    compiled = compile_schema({"$schema": draft, **schema}, "s.json")
    return [issue.message for issue in compiled.issues(instance)]


def closed(**schema: Any) -> dict[str, Any]:
    return {"type": "object", **schema, "unevaluatedProperties": False}


@pytest.mark.parametrize("draft", DRAFTS)
def test_additional_properties_evaluates_the_other_names(draft: str) -> None:
    schema = closed(properties={"foo": {"type": "string"}}, additionalProperties={"type": "string"})
    assert errors(draft, schema, {"foo": "a", "bar": "b", "type": "c"}) == []


@pytest.mark.parametrize("draft", DRAFTS)
def test_names_no_keyword_evaluates_are_refused(draft: str) -> None:
    schema = closed(properties={"foo": {}}, patternProperties={"^\\p{Lu}": {}})
    assert errors(draft, schema, {"foo": 1, "Émile": 2}) == []
    assert errors(draft, schema, {"foo": 1, "bar": 2, "baz": 3}) == [
        "Unevaluated properties are not allowed ('bar', 'baz' were unexpected)"
    ]


@pytest.mark.parametrize("draft", DRAFTS)
def test_only_subschemas_that_succeed_evaluate(draft: str) -> None:
    schema = closed(
        allOf=[{"properties": {"a": {}}}],
        anyOf=[
            {"properties": {"b": {"type": "string"}}, "required": ["b"]},
            {"properties": {"c": {}}, "required": ["c"]},
        ],
    )
    assert errors(draft, schema, {"a": 1, "b": "x"}) == []
    assert errors(draft, schema, {"a": 1, "b": 2, "c": 3}) == [
        "Unevaluated properties are not allowed ('b' was unexpected)"
    ]


@pytest.mark.parametrize("draft", DRAFTS)
def test_if_then_else_and_dependent_schemas_evaluate(draft: str) -> None:
    schema = closed(
        **{"if": {"properties": {"kind": {"const": "a"}}, "required": ["kind"]}},
        then={"properties": {"a": {}}},
        **{"else": {"properties": {"b": {}}}},
        dependentSchemas={"kind": {"properties": {"note": {}}}},
    )
    assert errors(draft, schema, {"kind": "a", "a": 1, "note": ""}) == []
    assert errors(draft, schema, {"b": 1}) == []
    # a failed `if` evaluates nothing, not even the `kind` it looked at
    assert errors(draft, schema, {"kind": "z", "a": 1}) == [
        "Unevaluated properties are not allowed ('a', 'kind' were unexpected)"
    ]


@pytest.mark.parametrize("draft", DRAFTS)
def test_a_ref_evaluates_what_its_target_does(draft: str) -> None:
    defs = "$defs" if draft.endswith("2020-12/schema") else "definitions"
    schema = closed(**{"$ref": f"#/{defs}/base", defs: {"base": {"properties": {"id": {}}}}})
    assert errors(draft, schema, {"id": 1}) == []
    assert errors(draft, schema, {"id": 1, "x": 2}) == [
        "Unevaluated properties are not allowed ('x' was unexpected)"
    ]


def test_a_recursive_ref_evaluates_in_draft_2019_09() -> None:
    schema = {
        "$recursiveAnchor": True,
        "properties": {"name": {}, "children": {"type": "array", "items": {"$recursiveRef": "#"}}},
        "unevaluatedProperties": False,
    }
    tree = {"name": "a", "children": [{"name": "b", "children": []}]}
    assert errors(DRAFTS[0], schema, tree) == []
    assert errors(DRAFTS[0], schema, {"children": [{"nom": "b"}]}) == [
        "Unevaluated properties are not allowed ('nom' was unexpected)"
    ]


@pytest.mark.parametrize("draft", DRAFTS)
def test_a_schema_for_unevaluated_names(draft: str) -> None:
    schema = {"properties": {"a": {}}, "unevaluatedProperties": {"type": "integer"}}
    assert errors(draft, schema, {"a": "x", "b": 1}) == []
    assert errors(draft, schema, {"a": "x", "b": "y"}) == [
        "Unevaluated properties are not valid under the given schema "
        "('b' was unevaluated and invalid)"
    ]


@pytest.mark.parametrize("draft", DRAFTS)
def test_the_schemas_of_draft_7_dependencies_evaluate(draft: str) -> None:
    schema = closed(
        properties={"a": True},
        dependencies={"a": {"properties": {"b": {"type": "integer"}}}, "c": ["a"]},
    )
    assert errors(draft, schema, {"a": 1, "b": 2}) == []
    assert errors(draft, schema, {"b": 2}) == [
        "Unevaluated properties are not allowed ('b' was unexpected)"
    ]
    assert errors(draft, schema, {"a": 1, "c": 2}) == [
        "Unevaluated properties are not allowed ('c' was unexpected)"
    ]


def test_nested_keywords_read_each_subschema_once(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[str] = []

    def counted(pattern: str) -> Any:
        reads.append(pattern)
        return ecma_regex(pattern)

    monkeypatch.setattr(unevaluated, "ecma_regex", counted)
    depth = 12
    schema: dict[str, Any] = {"patternProperties": {"^a": True}}
    for level in range(depth):
        schema = closed(allOf=[schema], properties={f"p{level}": True})
    assert errors(DRAFTS[1], schema, {"a": 1, "p0": 2}) == []
    assert errors(DRAFTS[1], schema, {"a": 1, "x": 2})[0] == (
        "Unevaluated properties are not allowed ('x' was unexpected)"
    )
    # the innermost patterns are read once per level that asks (twice per level in all);
    # each level doubled the reads when every keyword asked its subschemas again
    assert len(reads) <= 2 * depth
