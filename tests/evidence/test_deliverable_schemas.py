"""Compiling the deliverables' JSON Schemas: drafts, formats, errors, compile once."""

from __future__ import annotations

import json

import pytest

from rubricate.errors import ConfigError
from rubricate.evidence.deliverable_schemas import (
    compile_deliverable_schemas,
    compile_schema,
    schema_paths,
)

from .gitrepo import config_of

DATE = {"type": "string", "format": "date"}


@pytest.mark.parametrize(
    ("uri", "validator"),
    [
        (None, "Draft202012Validator"),
        ("https://json-schema.org/draft/2020-12/schema", "Draft202012Validator"),
        ("http://json-schema.org/draft-07/schema#", "Draft7Validator"),
        ("http://json-schema.org/draft-07/schema", "Draft7Validator"),
    ],
)
def test_validator_class_follows_schema_keyword(uri: str | None, validator: str) -> None:
    schema = {**DATE, **({"$schema": uri} if uri else {})}
    compiled = compile_schema(schema, "s.json")
    assert type(compiled.validator).__name__ == validator
    assert [i.message for i in compiled.issues("2024-13-45")] == ["'2024-13-45' is not a 'date'"]
    assert compiled.issues("2024-12-01") == []


def test_draft7_keywords_are_honoured() -> None:
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "integer"}]}
    issues = compile_schema(schema, "s.json").issues(["x"])
    assert [(i.pointer, i.message) for i in issues] == [("/0", "'x' is not of type 'integer'")]


def test_unknown_or_invalid_schemas_are_config_errors() -> None:
    with pytest.raises(ConfigError, match=r"schema s.json names an unknown \$schema"):
        compile_schema({"$schema": "https://example.org/nope"}, "s.json")
    with pytest.raises(
        ConfigError, match=r"schema s.json is not a valid JSON Schema: .* at minimum"
    ):
        compile_schema({"minimum": "zero"}, "s.json")
    with pytest.raises(ConfigError, match="expected an object or a boolean"):
        compile_schema([1], "s.json")
    assert compile_schema(True, "s.json").issues({"any": 1}) == []


def test_each_schema_file_is_compiled_once_and_inline_schemas_work() -> None:
    config = config_of(
        """
deliverables:
  - {glob: "a/*.json", schema: schemas/s.yml}
  - {glob: "b/*.json", schema: schemas/s.yml}
  - {glob: "c/*.json", schema: {type: integer}}
  - {glob: "d/*"}
"""
    )
    assert schema_paths(config) == ("schemas/s.yml",)
    compiled = compile_deliverable_schemas(config, {"schemas/s.yml": b"type: string\n"})
    assert compiled[0] is compiled[1]
    assert compiled[2].name == ".github/rubricate.yml (deliverables[2].schema)"
    assert compiled[2].issues("x")[0].message == "'x' is not of type 'integer'"
    assert 3 not in compiled


def test_unresolvable_ref_is_a_config_error_when_compiled() -> None:
    with pytest.raises(ConfigError, match=r"schema s\.json: \$ref 'other\.json' names no file"):
        compile_schema({"$ref": "other.json"}, "s.json")


def test_pointer_escapes() -> None:
    schema = {"properties": {"a/b": {"properties": {"~c": {"type": "integer"}}}}}
    issue = compile_schema(schema, "s.json").issues(json.loads('{"a/b": {"~c": "x"}}'))[0]
    assert issue.pointer == "/a~1b/~0c"


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "#"},
        {"allOf": [{"$ref": "#"}]},
        {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"},
        {"$schema": "https://json-schema.org/draft/2019-09/schema", "$recursiveRef": "#"},
    ],
)
def test_a_ref_cycle_is_a_config_error_not_a_recursion_error(schema: dict[str, object]) -> None:
    compiled = compile_schema(schema, "s.json")
    with pytest.raises(ConfigError, match=r"s\.json: validation went round in circles"):
        compiled.issues({"a": 1})


def test_a_ref_that_moves_into_the_data_is_no_cycle() -> None:
    schema = {"properties": {"child": {"$ref": "#"}}, "required": ["name"]}
    compiled = compile_schema(schema, "s.json")
    assert compiled.issues({"name": 1, "child": {"name": 2, "child": {"name": 3}}}) == []
    assert [i.pointer for i in compiled.issues({"name": 1, "child": {"child": {}}})] == [
        "/child",
        "/child/child",
    ]


def test_a_lone_surrogate_key_is_written_as_its_escape_in_the_pointer() -> None:
    compiled = compile_schema({"additionalProperties": {"type": "string"}}, "s.json")
    (issue,) = compiled.issues({"a/\ud83d~": 2})
    assert issue.pointer == "/a~1\\ud83d~0"
    issue.pointer.encode("utf-8")
