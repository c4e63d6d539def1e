"""Draft-07 `dependencies` may mix schemas with arrays of property names (TextMate's grammar
schema does): the schema compiles, validates both kinds, and a broken `$ref` after an array is
still found."""

from __future__ import annotations

import pytest

from rubricate.errors import ConfigError
from rubricate.evidence.deliverable_schemas import compile_schema

DRAFT7 = "http://json-schema.org/draft-07/schema#"


def _schema(dependencies: dict[str, object]) -> dict[str, object]:
    pattern = {"type": "object", "dependencies": dependencies}
    return {"$schema": DRAFT7, "definitions": {"pattern": pattern}, "$ref": "#/definitions/pattern"}


def test_schemas_and_arrays_mixed_in_dependencies_compile_and_validate() -> None:
    mixed = {"begin": {"anyOf": [{"required": ["end"]}, {"required": ["while"]}]}, "end": ["begin"]}
    compiled = compile_schema(_schema(mixed), "grammar.json")
    assert [issue.message for issue in compiled.issues({"end": "x"})] == [
        "'begin' is a dependency of 'end'"
    ]
    assert len(compiled.issues({"begin": "x"})) == 1
    assert compiled.issues({"begin": "x", "end": "y"}) == []


def test_a_broken_ref_after_an_array_is_still_found() -> None:
    broken = {"a": {"required": ["b"]}, "c": ["a"], "d": {"$ref": "#/definitions/missing"}}
    with pytest.raises(ConfigError, match="definitions/missing"):
        compile_schema(_schema(broken), "grammar.json")
