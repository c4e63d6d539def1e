"""The ECMA-262 regular expressions of JSON Schema: `pattern`, `patternProperties`, the
`additionalProperties` that reads them, and the `regex` format (pure).

JSON Schema's regular expressions are ECMA-262: they are matched with the `regress` library
(Python's `re` rejects named groups `(?<x>…)`, `\\p{L}` and other ECMA syntax, and reads some
patterns differently). Each pattern is compiled once (a bounded cache).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import regress
from jsonschema import ValidationError

from rubricate.errors import ConfigError

LONE_SURROGATE = re.compile("[\ud800-\udfff]")
SURROGATES_READ_AS = {code: code - 0xD800 + 0x10F000 for code in range(0xD800, 0xE000)}
"""Each lone surrogate (U+D800 to U+DFFF, which the regex library cannot read) as a code point
of plane 16's private use area (U+10F000 to U+10F7FF), one to one and in order, so that
distinct surrogates stay distinct and a range of them stays a range."""
MAX_PATTERNS = 4096
"""Compiled regular expressions kept (a schema store holds a few thousand)."""


@lru_cache(maxsize=MAX_PATTERNS)
def ecma_regex(pattern: str) -> Any:
    """A compiled ECMA-262 regular expression (Unicode mode); `ConfigError` when invalid. A
    lone surrogate (JSON's `\\ud800` escape) is read as `SURROGATES_READ_AS` says, here and
    in the text matched (`matches`)."""
    try:
        return regress.Regex(pattern, flags="u")
    except regress.RegressError as exc:
        raise ConfigError(f"{pattern!r} is not an ECMA-262 regular expression: {exc}") from None
    except UnicodeEncodeError:
        return ecma_regex(pattern.translate(SURROGATES_READ_AS))


def matches(regex: Any, text: str) -> bool:
    """Whether `regex` (from `ecma_regex`) finds a match in `text`, a lone surrogate read as
    `SURROGATES_READ_AS` says."""
    try:
        return regex.find(text) is not None
    except UnicodeEncodeError:
        return regex.find(text.translate(SURROGATES_READ_AS)) is not None


def is_ecma_regex(instance: object) -> bool:
    """The `regex` format: a string that compiles as ECMA-262 (other types pass)."""
    if not isinstance(instance, str):
        return True
    try:
        ecma_regex(instance)
    except ConfigError:
        return False
    return True


def pattern(validator: Any, regex: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """The `pattern` keyword, matched as ECMA-262."""
    if validator.is_type(instance, "string") and not matches(ecma_regex(regex), instance):
        yield ValidationError(f"{instance!r} does not match {regex!r}")


def pattern_properties(
    validator: Any, patterns: dict[str, Any], instance: Any, schema: Any
) -> Iterator[ValidationError]:
    """The `patternProperties` keyword, matched as ECMA-262."""
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        regex = ecma_regex(pattern)
        for key, value in instance.items():
            if matches(regex, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def additional_properties(
    validator: Any, extra_schema: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    """jsonschema's `additionalProperties`, with `patternProperties` matched as ECMA-262."""
    if not validator.is_type(instance, "object"):
        return
    known = schema.get("properties", {})
    patterns = [ecma_regex(p) for p in schema.get("patternProperties", {})]
    extras = [
        key
        for key in instance
        if key not in known and not any(matches(regex, key) for regex in patterns)
    ]
    if validator.is_type(extra_schema, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], extra_schema, path=extra)
    elif not extra_schema and extras:
        shown = ", ".join(repr(each) for each in sorted(extras, key=str))
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            regexes = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
            yield ValidationError(f"{shown} {verb} not match any of the regexes: {regexes}")
        else:
            verb = "was" if len(extras) == 1 else "were"
            yield ValidationError(
                f"Additional properties are not allowed ({shown} {verb} unexpected)"
            )
