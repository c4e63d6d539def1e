"""Located YAML data (`Located`), validated with a pydantic model into readable messages
(pure: no I/O).

Pydantic's error locations are mapped back to the YAML source, union tags are dropped, and
each message names the key and the value it got: `weight should be greater than 0, got -1`.
An unknown key gets a did-you-mean suggestion from the keys the model allows at that place.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from rubricate.errors import Diagnostic, SourceError
from rubricate.rubric.files import TAG_LIST, TAG_MAPPING, TAG_TEXT
from rubricate.suggest import did_you_mean
from rubricate.yamlsource import Loc, Locator, Problems, sorted_diagnostics

ModelT = TypeVar("ModelT", bound=BaseModel)
_TAGS = frozenset({TAG_TEXT, TAG_MAPPING, TAG_LIST})
_MAPPING_TYPES = frozenset({"model_type", "model_attributes_type", "dict_type"})


@dataclass(frozen=True)
class Located:
    """A value, where it is, and the problems list of the file it is in."""

    value: Any
    loc: Loc
    problems: Problems

    def child(self, key: Any) -> Located:
        """The located value under `key` (a mapping key or a list index)."""
        return Located(self.value[key], (*self.loc, key), self.problems)

    def items(self) -> list[Located]:
        """The located entries of a list value."""
        return [self.child(i) for i in range(len(self.value))]

    def error(self, message: str, *key: Any, at_key: bool = False) -> None:
        """Record an error here (or under `key`)."""
        self.problems.error((*self.loc, *key), message, key=at_key)

    def warn(self, message: str, *key: Any, at_key: bool = False) -> None:
        """Record a warning here (or under `key`)."""
        self.problems.warn((*self.loc, *key), message, key=at_key)


def validate_located(model: type[ModelT], data: Any, locator: Locator) -> ModelT:
    """Validate data with a pydantic model; raise `SourceError` with located, readable errors."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise SourceError(located_diagnostics(exc, model, data, locator)) from None


def located_diagnostics(
    exc: ValidationError, model: type[BaseModel], data: Any, locator: Locator
) -> list[Diagnostic]:
    """One located diagnostic per pydantic error, in source order."""
    schema = _schema(model)
    return sorted_diagnostics(_diagnostic(error, schema, data, locator) for error in exc.errors())


class Prefixed(Locator):
    """A locator for a sub-document validated inside a one-field wrapper model: a position's
    first part (the wrapper's field) is dropped and the rest is looked up under `prefix`."""

    def __init__(self, base: Locator, prefix: Loc) -> None:
        super().__init__(base.path, base.values, base.keys)
        self.prefix = prefix

    def at(self, loc: Loc, *, key: bool = False) -> tuple[int, int]:
        return super().at((*self.prefix, *loc[1:]), key=key)


def _diagnostic(
    error: ErrorDetails, schema: dict[str, Any], data: Any, locator: Locator
) -> Diagnostic:
    loc: Loc = tuple(part for part in error["loc"] if part not in _TAGS)
    is_key = bool(loc) and loc[-1] == "[key]"
    if is_key:
        loc = loc[:-1]
    kind = error["type"]
    if kind == "extra_forbidden":
        allowed = _allowed_keys(schema, data, loc[:-1])
        return locator.diag(
            loc, f"unknown key {loc[-1]!r}{did_you_mean(str(loc[-1]), allowed)}", key=True
        )
    if kind == "missing":
        return locator.diag(loc[:-1], f"missing required key {loc[-1]!r}")
    name = f"key of {_name(loc)}" if is_key else _name(loc)
    return locator.diag(loc, _message(error, name), key=is_key)


def _message(error: ErrorDetails, name: str) -> str:
    kind = error["type"]
    got = f", got {describe_value(error['input'])}"
    if kind in ("value_error", "assertion_error"):
        return f"{name}: {error.get('ctx', {}).get('error', error['msg'])}"
    if kind in _MAPPING_TYPES:
        return f"{name} should be a mapping{got}"
    if kind in ("too_short", "too_long"):
        ctx = error.get("ctx", {})
        bound = ctx.get("min_length", 0) if kind == "too_short" else ctx.get("max_length", 0)
        items = "item" if bound == 1 else "items"
        return f"{name} should have at {'least' if kind == 'too_short' else 'most'} {bound} {items}"
    text = error["msg"]
    if text.startswith("Input should"):
        return f"{name} should{text[len('Input should') :]}{got}"
    return f"{name}: {text}{got}"


def _name(loc: Loc) -> str:
    """A short name for a location: its key, with indexes after it (`criteria[2]`)."""
    if not loc:
        return "the document"
    tail: list[str] = []
    for part in reversed(loc):
        if isinstance(part, str):
            return part + "".join(reversed(tail))
        tail.append(f"[{part}]")
    return "item" + "".join(reversed(tail))


def describe_value(value: Any) -> str:
    """A short, YAML-flavoured description of a value for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:37] + "...")
    text = str(value)
    return text if len(text) <= 40 else text[:37] + "..."


@functools.lru_cache(maxsize=32)
def _schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema()


def _allowed_keys(schema: dict[str, Any], data: Any, loc: Loc) -> list[str]:
    """The keys the schema allows for the mapping at `loc` in `data`."""
    defs: dict[str, Any] = schema.get("$defs", {})
    node, value = _resolve(schema, defs, data), data
    for part in loc:
        value = value[part] if isinstance(value, (dict, list)) and _has(value, part) else None
        node = _resolve(_child(node, part), defs, value)
    return list(node.get("properties", {}))


def _has(container: dict[Any, Any] | list[Any], part: Any) -> bool:
    if isinstance(container, dict):
        return part in container
    return isinstance(part, int) and 0 <= part < len(container)


def _child(node: dict[str, Any], part: Any) -> dict[str, Any]:
    properties: dict[str, Any] = node.get("properties", {})
    if isinstance(part, str) and part in properties:
        return dict(properties[part])
    if isinstance(part, int) and isinstance(node.get("items"), dict):
        return dict(node["items"])
    extra = node.get("additionalProperties")
    return dict(extra) if isinstance(extra, dict) else {}


def _resolve(node: dict[str, Any], defs: dict[str, Any], value: Any) -> dict[str, Any]:
    """Follow `$ref`s and pick the union branch that fits the value's JSON type."""
    for _ in range(32):
        if "$ref" in node:
            node = defs.get(str(node["$ref"]).rsplit("/", 1)[-1], {})
        elif ("anyOf" in node or "oneOf" in node) and "properties" not in node:
            node = _pick(node.get("anyOf") or node.get("oneOf") or [], defs, value)
        else:
            break
    return node


def _pick(branches: list[dict[str, Any]], defs: dict[str, Any], value: Any) -> dict[str, Any]:
    wanted = _json_type(value)
    for branch in branches:
        target = (
            defs.get(str(branch["$ref"]).rsplit("/", 1)[-1], {}) if "$ref" in branch else branch
        )
        if target.get("type") == wanted or (wanted == "object" and "properties" in target):
            return branch
    return branches[0] if branches else {}


def _json_type(value: Any) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    return "other"
