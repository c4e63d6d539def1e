"""ECMA-262 patterns: a lone surrogate (JSON's `\\ud800`) is read as a private-use code point
of its own, never a crash."""

from __future__ import annotations

from typing import Any

from rubricate.evidence.deliverable_schemas import compile_schema
from rubricate.evidence.schema_patterns import ecma_regex, is_ecma_regex, matches


def errors(schema: Any, instance: Any) -> list[str]:
    return [issue.message for issue in compile_schema(schema, "s.json").issues(instance)]


def test_a_lone_surrogate_in_the_text_is_matched_as_itself() -> None:
    assert matches(ecma_regex("^.$"), "\ud800")
    assert not matches(ecma_regex("^\ufffd$"), "\udfff")
    assert not matches(ecma_regex("^a"), "\ud800a")
    assert matches(ecma_regex("^a"), "a\ud800")


def test_a_lone_surrogate_in_a_pattern_compiles_and_matches_only_itself() -> None:
    assert matches(ecma_regex("^\ud800$"), "\ud800")
    assert not matches(ecma_regex("^\ud800$"), "\udc00")
    assert not matches(ecma_regex("^\ud800$"), "\ufffd")
    assert matches(ecma_regex("^[\ud800-\udbff]+$"), "\udbff\ud800")
    assert not matches(ecma_regex("^[\ud800-\udbff]$"), "\udc00")
    assert is_ecma_regex("\ud800+")
    assert not is_ecma_regex("\ud800(")


def test_keywords_give_verdicts_on_lone_surrogates() -> None:
    assert errors({"pattern": "^a"}, "\ud800") == ["'\\ud800' does not match '^a'"]
    assert errors({"pattern": "^.$"}, "\ud800") == []
    schema = {"patternProperties": {"^x": {"type": "integer"}}, "additionalProperties": False}
    assert errors(schema, {"x\ud800": 1}) == []
    assert errors(schema, {"\ud800": 1}) == ["'\\ud800' does not match any of the regexes: '^x'"]
    unevaluated = {"patternProperties": {"^x": {}}, "unevaluatedProperties": False}
    assert errors(unevaluated, {"x\ud800": 1}) == []
