"""Schemas as real schemas are written: every draft, ECMA-262 regular expressions, all formats."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft4Validator, Draft202012Validator

from rubricate.errors import ConfigError
from rubricate.evidence import schema_dialect
from rubricate.evidence.deliverable_schemas import CompiledSchema, compile_schema
from rubricate.evidence.schema_dialect import FORMATS, format_checker

SEMVER = r"^(?<major>0|[1-9]\d*)\.(?<minor>0|[1-9]\d*)$"


def errors(schema: Any, instance: Any) -> list[str]:
    return [issue.message for issue in compile_schema(schema, "s.json").issues(instance)]


def test_ecma_named_groups_in_pattern_compile_and_match() -> None:
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "pattern": SEMVER}
    assert errors(schema, "1.22") == []
    assert errors(schema, "1.x") == [f"'1.x' does not match {SEMVER!r}"]


def test_ecma_unicode_classes_in_pattern_properties() -> None:
    schema = {"patternProperties": {r"^\p{Lu}": {"type": "integer"}}}
    assert errors(schema, {"Émile": 1, "lower": "free"}) == []
    assert errors(schema, {"Émile": "x"}) == ["'x' is not of type 'integer'"]


def test_patterns_search_rather_than_match_the_whole_string() -> None:
    assert errors({"pattern": "b"}, "abc") == []
    assert errors({"pattern": "^b"}, "abc") == ["'abc' does not match '^b'"]


def test_format_regex_is_ecma_262() -> None:
    schema = {"type": "string", "format": "regex"}
    assert errors(schema, "(?<name>x)") == []
    assert errors(schema, "(?P<name>x)") == ["'(?P<name>x)' is not a 'regex'"]
    assert errors(schema, "(") == ["'(' is not a 'regex'"]


def test_a_schema_whose_pattern_is_not_ecma_is_not_a_valid_schema() -> None:
    with pytest.raises(ConfigError, match=r"is not a valid JSON Schema: .* at pattern"):
        compile_schema({"pattern": "(?P<name>x)"}, "s.json")


@pytest.mark.parametrize(
    ("uri", "schema", "bad"),
    [
        ("http://json-schema.org/draft-04/schema#", {"maximum": 3, "exclusiveMaximum": True}, 3),
        ("http://json-schema.org/draft-06/schema#", {"const": 2}, 3),
        ("http://json-schema.org/draft-07/schema#", {"if": {"const": 1}, "then": False}, 1),
        ("https://json-schema.org/draft-07/schema#", {"if": {"const": 1}, "then": False}, 1),
        ("http://json-schema.org/draft-07/schema", {"contains": {"const": 1}}, [2]),
        (
            "https://json-schema.org/draft/2019-09/schema",
            {"dependentRequired": {"a": ["b"]}},
            {"a": 1},
        ),
        (
            "https://json-schema.org/draft/2020-12/schema",
            {"prefixItems": [{"type": "string"}]},
            [1],
        ),
    ],
)
def test_every_draft_a_schema_declares_is_honoured(uri: str, schema: Any, bad: Any) -> None:
    assert errors({"$schema": uri, **schema}, bad) != []


def test_draft4_keeps_its_own_keywords() -> None:
    schema = {"$schema": "http://json-schema.org/draft-04/schema#", "items": [{"type": "string"}]}
    assert errors(schema, ["a", 1]) == []
    assert errors(schema, [1]) == ["1 is not of type 'string'"]


DRAFT4 = "http://json-schema.org/draft-04/schema#"
DRAFT6 = "http://json-schema.org/draft-06/schema#"


@pytest.mark.parametrize(
    ("uri", "schema", "good", "bad"),
    [
        (DRAFT4, {"oneOf": [{"const": "a"}, {"const": "b"}]}, "b", "c"),
        (DRAFT4, {"contains": {"type": "string"}}, [1, "a"], [1]),
        (DRAFT4, {"propertyNames": {"maxLength": 2}}, {"ab": 1}, {"abc": 1}),
        (DRAFT6, {"if": {"const": 1}, "then": False, "else": {"type": "integer"}}, 2, 1),
        (
            DRAFT4,
            {"if": {"required": ["a"]}, "then": {"required": ["b"]}},
            {"a": 1, "b": 2},
            {"a": 1},
        ),
    ],
)
def test_older_drafts_apply_the_draft7_keywords_they_lack(
    uri: str, schema: Any, good: Any, bad: Any
) -> None:
    full = {"$schema": uri, **schema}
    assert errors(full, good) == []
    assert errors(full, bad) != []


@pytest.mark.parametrize(
    "uri",
    [
        "https://json-schema.org/draft/2019-09/schema",
        "https://json-schema.org/draft/2020-12/schema",
    ],
)
def test_later_drafts_keep_draft7_dependencies(uri: str) -> None:
    schema = {"$schema": uri, "dependencies": {"bar": ["foo"], "baz": {"required": ["qux"]}}}
    assert errors(schema, {"bar": 1, "foo": 2, "baz": 3, "qux": 4}) == []
    assert errors(schema, {"bar": 1}) == ["'foo' is a dependency of 'bar'"]
    assert errors(schema, {"baz": 1}) == ["'qux' is a required property"]


@pytest.mark.parametrize("uri", [DRAFT4, DRAFT6, "http://json-schema.org/draft-07/schema#"])
def test_keywords_beside_a_ref_apply_in_every_draft(uri: str) -> None:
    schema = {
        "$schema": uri,
        "definitions": {"hook": {"type": "object", "properties": {"id": {"type": "string"}}}},
        "items": {"$ref": "#/definitions/hook", "required": ["id", "entry"]},
    }
    assert errors(schema, [{"id": "a", "entry": "b"}]) == []
    assert errors(schema, [{"id": "a"}]) == ["'entry' is a required property"]
    assert errors(schema, [{"id": 1, "entry": "b"}]) == ["1 is not of type 'string'"]


@pytest.mark.parametrize("uri", [DRAFT4, DRAFT6, "http://json-schema.org/draft-07/schema#"])
@pytest.mark.parametrize(
    ("fmt", "good", "bad"),
    [("uuid", "123e4567-e89b-12d3-a456-426614174000", "not-a-uuid"), ("duration", "P1D", "1 day")],
)
def test_formats_of_later_drafts_are_checked_in_the_older_ones(
    uri: str, fmt: str, good: str, bad: str
) -> None:
    schema = {"$schema": uri, "format": fmt}
    assert errors(schema, good) == []
    assert errors(schema, bad) == [f"{bad!r} is not a {fmt!r}"]


def test_draft4_exclusive_maximum_stays_a_boolean_modifier() -> None:
    schema = {"$schema": DRAFT4, "maximum": 3, "exclusiveMaximum": False}
    assert errors(schema, 3) == []


@pytest.mark.parametrize("cls", [Draft4Validator, Draft202012Validator])
def test_the_core_install_checks_every_format(cls: Any) -> None:
    checked = set(format_checker(cls).checkers)
    wanted = set(FORMATS) if cls is Draft202012Validator else {"date-time", "email", "uri", "uuid"}
    assert wanted <= checked


@pytest.mark.parametrize(
    ("fmt", "good", "bad"),
    [
        ("date-time", "2024-02-29T12:00:00Z", "2024-02-30T12:00:00Z"),
        ("date", "2024-02-29", "2023-02-29"),
        ("time", "12:00:00+02:00", "25:00:00Z"),
        ("email", "a@example.org", "not an email"),
        ("uri", "https://example.org/x?y#z", "no scheme"),
        ("uri-reference", "../x", "\\\\bad"),
        ("iri", "https://例え.jp/", "no scheme"),
        ("duration", "P1DT2H", "1 day"),
        ("json-pointer", "/a/b~1c", "a/b"),
        ("relative-json-pointer", "0/a", "/a"),
        ("uri-template", "https://x.org/{id}", "https://x.org/{id"),
        ("uuid", "123e4567-e89b-12d3-a456-426614174000", "123"),
        ("ipv4", "192.0.2.1", "256.0.0.1"),
        ("ipv6", "2001:db8::1", "2001:db8:::1"),
        ("hostname", "example.org", "-bad-.org"),
        ("idn-hostname", "例え.jp", "-bad-.jp"),
    ],
)
def test_formats_give_the_same_verdict_on_every_install(fmt: str, good: str, bad: str) -> None:
    schema = {"type": "string", "format": fmt}
    assert errors(schema, good) == []
    assert errors(schema, bad) == [f"{bad!r} is not a {fmt!r}"]


def test_additional_properties_reads_pattern_properties_as_ecma() -> None:
    schema = {"patternProperties": {r"^(?<k>x)\d$": {}}, "additionalProperties": False}
    assert errors(schema, {"x1": 1}) == []
    assert errors(schema, {"y": 1}) == ["'y' does not match any of the regexes: '^(?<k>x)\\\\d$'"]
    assert errors({"additionalProperties": False, "properties": {"a": {}}}, {"a": 1, "b": 2}) == [
        "Additional properties are not allowed ('b' was unexpected)"
    ]


def test_unevaluated_properties_reads_pattern_properties_as_ecma() -> None:
    """Python's `re` cannot read `(?<k>x)`: the pattern is ECMA-262 here too, a verdict."""
    schema = {"patternProperties": {"^(?<k>x)$": {}}, "unevaluatedProperties": False}
    compiled = compile_schema(schema, "s.json")
    assert compiled.issues({"x": 1}) == []
    assert [issue.message for issue in compiled.issues({"y": 1})] == [
        "Unevaluated properties are not allowed ('y' was unexpected)"
    ]


def test_a_subschema_that_is_a_list_is_a_schema_warning_not_a_traceback() -> None:
    """`referencing` reads a subschema's `$id` with `.get`: on a list it raises AttributeError
    (seen on SchemaStore's corpus); that is a problem of the schema, not a crash."""
    compiled = compile_schema({"type": "object"}, "s.json")

    class Walker:
        def iter_errors(self, instance: Any) -> Any:
            raise AttributeError("'list' object has no attribute 'get'")

    broken = CompiledSchema(compiled.name, Walker())
    with pytest.raises(ConfigError, match="neither an object nor a boolean"):
        broken.issues({})


def test_a_schema_checked_again_keeps_its_verdict_and_is_named_each_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bad = {"type": "integer", "minimum": "one"}
    good = {"type": "object", "required": ["kept-verdict"]}
    with pytest.raises(ConfigError, match=r"schema a.json is not a valid JSON Schema: .* at min"):
        compile_schema(bad, "a.json")
    compile_schema(good, "g.json")

    def checked_again(*_args: object) -> None:
        raise AssertionError("the metaschema ran again")

    monkeypatch.setattr(schema_dialect, "_schema_problem", checked_again)
    with pytest.raises(ConfigError, match=r"schema b.json is not a valid JSON Schema: .* at min"):
        compile_schema(dict(bad), "b.json")
    compile_schema({"required": ["kept-verdict"], "type": "object"}, "h.json")
    with pytest.raises(AssertionError, match="ran again"):  # not JSON as written: checked
        compile_schema({"type": "object", "required": ["kept-verdict"], 1: {}}, "i.json")
