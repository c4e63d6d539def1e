"""Frozen records read from JSON without pydantic (pure: values only).

A record's fields, with their types, defaults, bounds and rules, are written once, as the fields
of a frozen dataclass (`rule` adds bounds and a rule to a field). A value in canonical form (the
exact JSON types a line holds: text as text, an integer as an integer, a UTC time in RFC 3339)
is checked here, field by field, by readers made from those types. Anything else (a lax value
such as `"pr": "5"`, an invalid one) goes to the pydantic model `ledger.event_model` builds from
the same fields, which decides it and words its errors. See DESIGN.md §3.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import re
import types
import typing
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, ClassVar, Final, Literal, TypeVar, Union

from rubricate.errors import Undecided
from rubricate.ledger.times import in_utc, read_time

R = TypeVar("R", bound="Record")
Reader = Callable[[Any], Any]
Rule = Callable[[Any], "str | None"]
"""A rule of a record or of a field's value: why it is not valid, or None."""
MISSING: Final = dataclasses.MISSING
EXACT_FLOAT: Final = 2**53
"""Integers up to this size are floats exactly, so `5` in a float field reads as `5.0`."""
PLAIN_DEPTH: Final = 64
"""Nesting a free-form value (`evidence`) may have for the canonical reader; deeper values go to
the model, which refuses a JSON text nested past its parser's limit (about 200 levels)."""
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?(?:Z|[+-]\d\d:\d\d)")
_WRITTEN_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
"""A time as the ledger writes it (`rfc3339`): UTC, whole seconds."""


def rule(
    default: Any = MISSING,
    *,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    min_length: int | None = None,
    max_length: int | None = None,
    check: Rule | None = None,
    schema: Mapping[str, Any] | None = None,
    dump: Callable[[Any], Any] | None = None,
) -> Any:
    """A field with bounds, a rule for its value (`check`), extra JSON Schema keywords, and how
    its value is written as JSON (`dump`, when it is not JSON itself)."""
    limits = {"ge": ge, "gt": gt, "le": le, "min_length": min_length, "max_length": max_length}
    metadata = {"limits": {k: v for k, v in limits.items() if v is not None}, "dump": dump}
    return dataclasses.field(
        default=default, metadata=metadata | {"check": check, "schema": schema}
    )


class Record:
    """A frozen record: checked when made (a lax or invalid value goes to the model, which
    coerces it or raises pydantic's `ValidationError`, a `ValueError`), read from JSON values
    (`model_validate`, `model_validate_json`) and written back (`model_dump`)."""

    rules: ClassVar[tuple[Rule, ...]] = ()
    """Rules over the whole record, in the order the model applies them."""
    schema_extra: ClassVar[Mapping[str, Any] | None] = None
    """JSON Schema keywords of the whole record."""

    def __post_init__(self) -> None:
        given = {name: getattr(self, name) for name in _spec(type(self)).names}
        try:
            held = read_values(type(self), given)
        except Undecided:
            held = _judged(type(self), given, None).__dict__
        object.__setattr__(self, "__dict__", held)

    @classmethod
    def model_validate(cls: type[R], data: Any) -> R:
        """The record of a mapping of values: read directly when canonical, else by the model."""
        if type(data) is cls:
            return data
        try:
            if type(data) is not dict:
                raise Undecided
            return made(cls, read_values(cls, data))
        except Undecided:
            return _judged(cls, data, None)

    @classmethod
    def model_validate_json(cls: type[R], text: str | bytes) -> R:
        """The record of a JSON text: read directly when canonical, else by the model."""
        try:
            data = loads(text)
            if type(data) is not dict:
                raise Undecided
            return made(cls, read_values(cls, data))
        except (Undecided, ValueError, RecursionError):
            return _judged(cls, None, text)

    def model_dump(self, mode: str = "python", exclude_none: bool = False) -> dict[str, Any]:
        """The record as JSON values, in field order (each field written by its `dump`); `mode`
        is either "python" or "json": both give the same values."""
        del mode  # (no value is held in a form JSON has no word for)
        out: dict[str, Any] = {}
        held = self.__dict__
        spec = _spec(type(self))
        for name in spec.names:
            value = held[name]
            if value is None:
                if not exclude_none:
                    out[name] = None
            elif name in spec.dumps:
                out[name] = spec.dumps[name](value)
            else:
                out[name] = _dumped(value, exclude_none)
        return out

    def model_copy(self: R, update: Mapping[str, Any] | None = None) -> R:
        """A copy with `update`'s values, not checked again (as a pydantic model's copy)."""
        return made(type(self), {**self.__dict__, **(update or {})})

    @classmethod
    def model_json_schema(cls) -> dict[str, Any]:
        """The record's JSON Schema (from its model)."""
        schema: dict[str, Any] = _model(cls).model_json_schema()
        return schema


def loads(text: str | bytes) -> Any:
    """A JSON text's values; bytes must be UTF-8 without a byte order mark, as the model's parser
    reads them (`json.loads` would guess UTF-16 or UTF-32, and skip a mark): `ValueError` else."""
    return json.loads(text if isinstance(text, str) else text.decode("utf-8"))


def _dumped(value: Any, exclude_none: bool) -> Any:
    if isinstance(value, Record):
        return value.model_dump(exclude_none=exclude_none)
    if type(value) is dict:
        return {k: _dumped(v, exclude_none) for k, v in value.items()}
    return value


def made(kind: type[R], held: dict[str, Any]) -> R:
    """A record of values already checked (the dict becomes the record's own)."""
    record = object.__new__(kind)
    object.__setattr__(record, "__dict__", held)
    return record


@dataclasses.dataclass(frozen=True)
class _Spec:
    names: tuple[str, ...]
    readers: dict[str, Reader]
    defaults: dict[str, Any]
    count: int
    dumps: dict[str, Callable[[Any], Any]]
    written: frozenset[str]
    """The fields the record always writes: those without a default, or with one not null."""
    fields: tuple[dataclasses.Field[Any], ...]
    hints: dict[str, Any]

    @functools.cached_property
    def exact(self) -> dict[str, Reader]:
        """The readers of values exactly as the record writes them (see `read_values`), made
        when first used (only a reader of lines as written uses them)."""
        return {
            f.name: _bounded(_reader(self.hints[f.name], True), f.metadata) for f in self.fields
        }


_SPECS: dict[type[Record], _Spec] = {}


def _spec(kind: type[Record]) -> _Spec:
    found = _SPECS.get(kind)
    if found is None:
        hints = typing.get_type_hints(kind)
        fields = dataclasses.fields(kind)  # type: ignore[arg-type]
        readers = {f.name: _bounded(_reader(hints[f.name]), f.metadata) for f in fields}
        defaults = {f.name: f.default for f in fields if f.default is not MISSING}
        names = tuple(f.name for f in fields)
        dumps = {f.name: f.metadata["dump"] for f in fields if f.metadata.get("dump")}
        written = frozenset(n for n in names if defaults.get(n, MISSING) is not None)
        found = _Spec(names, readers, defaults, len(names), dumps, written, fields, hints)
        _SPECS[kind] = found
    return found


def read_values(
    kind: type[Record], given: Mapping[str, Any], exact: bool = False
) -> dict[str, Any]:
    """The values a record holds, when every given value is canonical and valid: each key a
    field, every field without a default given, each value of its field's exact type.

    `exact` asks for more: the values must be the record's JSON values exactly as
    `model_dump(exclude_none=True)` writes them, so that their JSON text is the record's own.
    Reading them then changes nothing: a number is a float where the field holds one, a time is
    written in UTC to the second with a `Z`, no value is null, and every field with a default
    other than null is given."""
    spec = _spec(kind)
    held = spec.defaults.copy()
    readers = spec.exact if exact else spec.readers
    for name, value in given.items():
        reader = readers.get(name)
        if reader is None:
            raise Undecided
        held[name] = reader(value)
    if len(held) != spec.count:
        raise Undecided  # a field without a default is missing
    if exact and (None in given.values() or not spec.written <= given.keys()):
        raise Undecided  # a null written, or a default left out: not the record's own JSON
    if kind.rules:
        record = made(kind, held)
        for check in kind.rules:
            if check(record) is not None:
                raise Undecided
    return held


def _judged(kind: type[R], values: Any, text: str | bytes | None) -> R:
    # pydantic loads only for an input the canonical reader leaves undecided: a lax or invalid
    # value (the model coerces it, or words its errors); canonical records never load it.
    from rubricate.ledger.event_model import judged

    return judged(kind, values, text)


def _model(kind: type[Record]) -> Any:
    # pydantic loads only for the JSON Schema here (see `_judged`)
    from rubricate.ledger.event_model import model

    return model(kind)


def _bounded(reader: Reader, metadata: Mapping[str, Any]) -> Reader:
    limits: Mapping[str, float] = metadata.get("limits", {})
    check: Rule | None = metadata.get("check")
    if not limits and check is None:
        return reader
    low, above, high = limits.get("ge"), limits.get("gt"), limits.get("le")
    shortest, longest = limits.get("min_length", 0), limits.get("max_length", math.inf)

    def bounded(value: Any) -> Any:
        held = reader(value)
        if held is None:
            return None
        if type(held) is str:
            if not shortest <= len(held) <= longest:
                raise Undecided
        elif (
            (low is not None and held < low)
            or (above is not None and held <= above)
            or (high is not None and held > high)
        ):
            raise Undecided
        if check is not None and check(held) is not None:
            raise Undecided
        return held

    return bounded


def _reader(hint: Any, exact: bool = False) -> Reader:
    """The canonical reader of a field's type: the value as held, or `Undecided`; `exact`, the
    reader of the values the record writes (see `read_values`)."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (Union, types.UnionType):
        members = [arg for arg in args if arg is not type(None)]
        return _union([_reader(arg, exact) for arg in members], len(members) < len(args))
    if origin is Literal:
        return _literal(frozenset((type(v), v) for v in args))
    if origin is dict:
        return _mapping(_reader(args[1], exact))
    if origin is list:
        return _sequence(_reader(args[0], exact))
    if isinstance(hint, type) and issubclass(hint, Record):
        return _nested(hint, exact)
    return (_WRITTEN if exact else _SIMPLE)[hint]


def _union(readers: list[Reader], optional: bool) -> Reader:
    if len(readers) == 1 and readers[0] is _text and optional:
        return _optional_text  # (the commonest field: read without a second call)
    if len(readers) == 1:
        only = readers[0]
        return lambda value: None if value is None and optional else only(value)

    def read(value: Any) -> Any:
        if value is None and optional:
            return None
        for reader in readers:
            try:
                return reader(value)
            except Undecided:
                continue
        raise Undecided

    return read


def _literal(allowed: frozenset[tuple[type, Any]]) -> Reader:
    kinds = frozenset(kind for kind, _ in allowed)

    def read(value: Any) -> Any:
        if type(value) in kinds and (type(value), value) in allowed:
            return value
        raise Undecided

    return read


def _mapping(item: Reader) -> Reader:
    def read(value: Any) -> dict[str, Any]:
        if type(value) is not dict:
            raise Undecided
        return {_text(key): item(v) for key, v in value.items()}

    return read


def _sequence(item: Reader) -> Reader:
    def read(value: Any) -> list[Any]:
        if type(value) is not list:
            raise Undecided
        return [item(v) for v in value]

    return read


def _nested(kind: type[Record], exact: bool) -> Reader:
    def read(value: Any) -> Any:
        if type(value) is kind:  # (a record given in code: no JSON text, exact or not)
            return value
        if type(value) is not dict:
            raise Undecided
        return made(kind, read_values(kind, value, exact))

    return read


def _text(value: Any) -> str:
    if type(value) is str:
        if value.isascii():  # (most text: checked at once)
            return value
        try:
            value.encode("utf-8")  # no lone surrogate, which no JSON text can hold
        except UnicodeEncodeError:
            raise Undecided from None
        return value
    raise Undecided


def _exact(kind: type) -> Reader:
    """A reader of values of exactly this type (an int is no bool, a bool no int)."""

    def read(value: Any) -> Any:
        if type(value) is kind:
            return value
        raise Undecided

    return read


def _optional_text(value: Any) -> str | None:
    if value is None or (type(value) is str and value.isascii()):
        return value
    return _text(value)


def _number(value: Any) -> float:
    if type(value) is float and math.isfinite(value):
        return value
    if type(value) is int and -EXACT_FLOAT <= value <= EXACT_FLOAT:
        return float(value)
    raise Undecided


def _float(value: Any) -> float:
    if type(value) is float and math.isfinite(value):
        return value
    raise Undecided


def _written_time(value: Any) -> datetime:
    """A time as the ledger writes it (UTC, whole seconds, `Z`)."""
    if type(value) is str and _WRITTEN_TIME.fullmatch(value):
        return _time(value)
    raise Undecided


def _time(value: Any) -> datetime:
    """A time with its offset, in UTC: RFC 3339 text, or an aware time given in code."""
    if type(value) is str and _TIME.fullmatch(value):
        try:
            parsed = read_time(value)
        except ValueError:
            raise Undecided from None
    elif type(value) is datetime and value.utcoffset() is not None:
        parsed = value
    else:
        raise Undecided
    try:
        return in_utc(parsed)
    except OverflowError:
        raise Undecided from None


def _plain(value: Any, depth: int = 0) -> Any:
    """JSON's own values only (finite numbers, text): what reads back as it was written. Values
    nested deeper than `PLAIN_DEPTH` are left to the model, whose parser has a nesting limit."""
    kind = type(value)
    if kind is str:
        return _text(value)
    if kind is int or kind is bool or value is None:
        return value
    if kind is float and math.isfinite(value):
        return value
    if depth >= PLAIN_DEPTH:
        raise Undecided
    if kind is list:
        return [_plain(v, depth + 1) for v in value]
    if kind is dict:
        return {_text(k): _plain(v, depth + 1) for k, v in value.items()}
    raise Undecided


_SIMPLE: dict[Any, Reader] = {
    str: _text,
    int: _exact(int),
    float: _number,
    bool: _exact(bool),
    datetime: _time,
    Any: _plain,
}
_WRITTEN: dict[Any, Reader] = {**_SIMPLE, float: _float, datetime: _written_time}
"""The readers of values as a record writes them: no integer for a float, a time as written."""
