"""`unevaluatedProperties` of drafts 2019-09 and 2020-12, with ECMA-262 patterns (pure).

A property is evaluated when a keyword that applies to it succeeds: `properties` and
`patternProperties` (patterns read as ECMA-262, as `pattern` is) for the names they match,
`additionalProperties` and `unevaluatedProperties` for the others, in the schema itself and
in every subschema that succeeds: `$ref`, `$dynamicRef` and draft 2019-09's `$recursiveRef`,
`allOf`/`anyOf`/`oneOf`, `if`/`then`/`else`, `dependentSchemas` and the schemas of draft 7's
`dependencies`. jsonschema's draft 2019-09 keyword read an object-valued
`additionalProperties` as a list of property names (so `{"additionalProperties": {"type":
"string"}}` evaluated only a property called `type`: a wrong fail), and both drafts' keywords
read patterns with Python's `re`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any, TypeVar

from jsonschema import ValidationError
from referencing.jsonschema import lookup_recursive_ref

from rubricate.evidence.schema_patterns import ecma_regex, matches

T = TypeVar("T")
APPLICATORS = ("allOf", "anyOf", "oneOf")
DEPENDENT = ("dependentSchemas", "dependencies")
"""Keywords of subschemas applied when a property is present (`dependencies` as draft 7 wrote
it, which `schema_dialect` keeps in these drafts; its lists of names evaluate nothing)."""
_MEMO: ContextVar[dict[tuple[Any, ...], tuple[Any, Any, Any]] | None] = ContextVar(
    "unevaluated_memo", default=None
)
"""While the outermost `unevaluatedProperties` runs: each subschema's verdict and evaluated
names on each instance, by (kind, schema id, instance id, draft, base URI, dynamic scope), with
the schema and instance kept so that their ids stay theirs. Nested keywords each asked again
whether their subschemas succeed, so time doubled with each level of nesting."""


def unevaluated_properties(
    validator: Any, unevaluated: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    """The keyword: every property no other keyword evaluated must match `unevaluated`."""
    if not validator.is_type(instance, "object"):
        return
    token = _MEMO.set({}) if _MEMO.get() is None else None
    try:
        others = {key: value for key, value in schema.items() if key != "unevaluatedProperties"}
        evaluated = evaluated_keys(validator, instance, others)
        failed = [
            key
            for key in instance
            if key not in evaluated
            and next(validator.descend(instance[key], unevaluated, path=key), None) is not None
        ]
    finally:
        if token is not None:
            _MEMO.reset(token)
    if not failed:
        return
    shown = ", ".join(repr(key) for key in sorted(failed, key=str))
    verb = "was" if len(failed) == 1 else "were"
    if unevaluated is False:
        yield ValidationError(f"Unevaluated properties are not allowed ({shown} {verb} unexpected)")
    else:
        yield ValidationError(
            "Unevaluated properties are not valid under the given schema "
            f"({shown} {verb} unevaluated and invalid)"
        )


def evaluated_keys(validator: Any, instance: dict[str, Any], schema: Any) -> set[str]:
    """The properties of `instance` that `schema` (assumed to succeed) evaluates."""
    if not isinstance(schema, dict):
        return set()
    return _memoised("evaluated", validator, instance, schema, _evaluated_keys)


def _evaluated_keys(validator: Any, instance: dict[str, Any], schema: dict[str, Any]) -> set[str]:
    keys: set[str] = set()
    for keyword in ("$ref", "$dynamicRef"):
        ref = schema.get(keyword)
        if isinstance(ref, str):
            keys |= _resolved_keys(validator, instance, validator._resolver.lookup(ref))
    if "$recursiveRef" in schema:
        keys |= _resolved_keys(validator, instance, lookup_recursive_ref(validator._resolver))
    properties = schema.get("properties")
    named = set(properties) & set(instance) if isinstance(properties, dict) else set()
    patterns = schema.get("patternProperties")
    if isinstance(patterns, dict):
        regexes = [ecma_regex(pattern) for pattern in patterns]
        named |= {key for key in instance if any(matches(r, key) for r in regexes)}
    keys |= named
    if "additionalProperties" in schema or "unevaluatedProperties" in schema:
        keys |= set(instance)
    for keyword in DEPENDENT:
        dependent = schema.get(keyword)
        for key, subschema in dependent.items() if isinstance(dependent, dict) else ():
            if key in instance and isinstance(subschema, (dict, bool)):
                keys |= evaluated_keys(validator, instance, subschema)
    for keyword in APPLICATORS:
        for subschema in schema.get(keyword, ()):
            if _succeeds(validator, instance, subschema):
                keys |= evaluated_keys(validator, instance, subschema)
    if "if" in schema:
        if _succeeds(validator, instance, schema["if"]):
            keys |= evaluated_keys(validator, instance, schema["if"])
            keys |= evaluated_keys(validator, instance, schema.get("then"))
        else:
            keys |= evaluated_keys(validator, instance, schema.get("else"))
    return keys


def _resolved_keys(validator: Any, instance: dict[str, Any], resolved: Any) -> set[str]:
    scoped = validator.evolve(schema=resolved.contents, _resolver=resolved.resolver)
    return evaluated_keys(scoped, instance, resolved.contents)


def _succeeds(validator: Any, instance: Any, subschema: Any) -> bool:
    return _memoised("succeeds", validator, instance, subschema, _first_error_is_none)


def _first_error_is_none(validator: Any, instance: Any, subschema: Any) -> bool:
    return next(validator.descend(instance, subschema), None) is None


def _memoised(
    kind: str, validator: Any, instance: Any, schema: Any, compute: Callable[[Any, Any, Any], T]
) -> T:
    """`compute(validator, instance, schema)`, once per outermost `unevaluatedProperties`."""
    memo = _MEMO.get()
    if memo is None:
        return compute(validator, instance, schema)
    resolver = validator._resolver
    scope = tuple(resolver._previous)
    key = (kind, id(schema), id(instance), type(validator), resolver._base_uri, scope)
    found = memo.get(key)
    if found is None:
        found = memo[key] = (schema, instance, compute(validator, instance, schema))
    result: T = found[2]
    return result
