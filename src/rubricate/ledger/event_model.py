"""The pydantic models of the ledger's records, built from their dataclass fields (pure).

`ledger.records` reads canonical values without pydantic; this module builds, once per record
class (a frozen dataclass of `ledger.records`; this module reads only its dataclass fields and
their metadata), the model of the same fields: types, defaults, bounds and rules. The model
publishes the JSON Schema and decides every other input: it coerces a lax value or words the
errors of an invalid one (`describe_validation`). See DESIGN.md §3.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal, TypeVar, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)

from rubricate.ledger.times import in_utc

R = TypeVar("R")
Rule = Callable[[Any], "str | None"]
_UNION_TAGS = frozenset({"float", "bool", "int", "str"})
_MODELS: dict[type[Any], type[BaseModel]] = {}
_RECORDS: dict[type[BaseModel], type[Any]] = {}
_NAMES: dict[type[Any], list[tuple[str, bool]]] = {}
"""Each record's fields, and whether each holds JSON values (`Any`: kept as JSON gives them)."""
NO_TIMEZONE = "timestamps must carry a timezone (RFC 3339)"
OUT_OF_RANGE = "the time is out of range in UTC"


def model(kind: type[Any]) -> type[BaseModel]:
    """The pydantic model of a record class, built once from its fields."""
    built = _MODELS.get(kind)
    if built is None:
        built = _MODELS[kind] = _built(kind)
        _RECORDS[built] = kind
        hints = typing.get_type_hints(kind)
        _NAMES[kind] = [(f.name, _holds_any(hints[f.name])) for f in dataclasses.fields(kind)]
    return built


def judged(kind: type[R], values: Any, text: str | bytes | None = None) -> R:
    """The record of `values` (or of the JSON `text`) as the model reads it; pydantic's
    `ValidationError` (a `ValueError`) when it is not one."""
    if text is not None:
        validated = model(kind).model_validate_json(text)
    else:
        validated = model(kind).model_validate(_plain(values))
    record = _record(validated)
    assert isinstance(record, kind)
    return record


def describe_validation(exc: ValidationError) -> str:
    """A short human message for the first few validation errors."""
    described: dict[str, str] = {}
    for error in exc.errors():
        loc = list(error["loc"])
        if len(loc) > 1 and loc[-1] in _UNION_TAGS:
            loc.pop()  # one message per value, not one per member of `float | bool | None`
        where = ".".join(str(p) for p in loc)
        if error["type"] == "json_invalid":
            message = f"not JSON ({error['msg'].removeprefix('Invalid JSON: ')})"
        else:
            message = str(error["msg"]).removeprefix("Value error, ")
            message = f"{where}: {message}" if where else message
        described.setdefault(where, message)
    parts = list(described.values())
    extra = len(parts) - 3
    return "; ".join(parts[:3]) + (f" (and {extra} more)" if extra > 0 else "")


def _plain(value: Any) -> Any:
    """Values for the model: records as the values they were made from."""
    if _is_record(type(value)):
        return {name: _plain(v) for name, v in value.__dict__.items()}
    if type(value) is dict:
        return {k: _plain(v) for k, v in value.items()}
    return value


def _record(value: Any) -> Any:
    """A value of the model as records hold it (JSON values where the type is `Any`)."""
    kind = _RECORDS.get(type(value))
    if kind is None:
        if type(value) is dict:
            return {k: _record(v) for k, v in value.items()}
        return value
    held = {}
    for name, as_json in _NAMES[kind]:
        inner = getattr(value, name)
        if as_json and inner is not None:
            inner = value.model_dump(mode="json", include={name})[name]
        held[name] = _record(inner)
    record = object.__new__(kind)
    object.__setattr__(record, "__dict__", held)  # (checked by the model: frozen as read)
    return record


def _is_record(kind: Any) -> bool:
    return isinstance(kind, type) and dataclasses.is_dataclass(kind)


def _holds_any(hint: Any) -> bool:
    return hint is Any or any(_holds_any(arg) for arg in typing.get_args(hint))


def _built(kind: type[Any]) -> type[BaseModel]:
    hints = typing.get_type_hints(kind)
    fields: dict[str, Any] = {}
    validators: dict[str, Any] = {}
    for item in dataclasses.fields(kind):
        given: dict[str, Any] = (
            {} if item.default is dataclasses.MISSING else {"default": item.default}
        )
        schema = item.metadata.get("schema")
        extra: dict[str, Any] = {} if schema is None else {"json_schema_extra": dict(schema)}
        limits: dict[str, Any] = item.metadata.get("limits", {})
        field = Field(**given, **limits, **extra)
        fields[item.name] = (_annotation(hints[item.name]), field)
        check = item.metadata.get("check")
        if check is not None:
            validators[f"_check_{item.name}"] = field_validator(item.name)(_field_rule(check))
    times = [name for name, hint in hints.items() if name in fields and _is_time(hint)]
    if times:
        validators["_utc"] = field_validator(*times)(_utc)
    for number, check in enumerate(getattr(kind, "rules", ())):
        validators[f"_rule_{number}"] = model_validator(mode="after")(_model_rule(check))
    config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
    schema_extra = getattr(kind, "schema_extra", None)
    if schema_extra is not None:
        config["json_schema_extra"] = dict(schema_extra)
    return create_model(
        kind.__name__,
        __config__=config,
        __doc__=kind.__doc__,
        __validators__=validators,
        **fields,
    )


def _annotation(hint: Any) -> Any:
    """A field's type with each record class replaced by its model."""
    if _is_record(hint):
        return model(hint)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is None or origin is Literal:
        return hint
    converted = tuple(_annotation(arg) for arg in args)
    if origin in (Union, types.UnionType):
        return Union[converted]  # noqa: UP007 (built from a tuple)
    return origin[converted]


def _is_time(hint: Any) -> bool:
    return hint is datetime or datetime in typing.get_args(hint)


def _utc(cls: type[BaseModel], value: datetime | None) -> datetime | None:
    if value is None:
        return None
    if value.tzinfo is None:
        raise ValueError(NO_TIMEZONE)
    try:
        return in_utc(value)
    except OverflowError:
        raise ValueError(OUT_OF_RANGE) from None


def _field_rule(check: Rule) -> Any:
    def validate(cls: type[BaseModel], value: Any) -> Any:
        problem = check(value)
        if problem is not None:
            raise ValueError(problem)
        return value

    return validate


def _model_rule(check: Rule) -> Any:
    def validate(self: BaseModel) -> BaseModel:
        problem = check(_record(self))  # (a rule reads the record, as the canonical reader's)
        if problem is not None:
            raise ValueError(problem)
        return self

    return validate
