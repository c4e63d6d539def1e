"""Awkward event inputs, and what reading each gives (shared by the event reader's tests).

Every field of a few valid events is replaced by each of many awkward values (wrong types, lax
forms, bounds, times, unicode, NaN and overflowing numbers), dropped, or joined by an unknown
key; nested fields too. `outcome` says what reading one gives: the worded refusal, or the line
it writes, its record and its times to the microsecond.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from functools import partial
from typing import Any

from pydantic import ValidationError

from rubricate.errors import LedgerError
from rubricate.ledger.codec import event_from_line
from rubricate.ledger.event import Event
from rubricate.ledger.event_model import describe_validation

CRITERIA = {"s": {"weight": 0.5}, "n": {"weight": 0.5, "nullable": True}}
RUBRIC = {"id": "r", "version": "1", "scale": {"min": 1, "max": 5}, "criteria": CRITERIA}
BASE = {
    "schema_version": 1,
    "id": "x" * 64,
    "kind": "review_scored",
    "repo": "o/r",
    "pr": 7,
    "author": "alice",
    "actor": "bob",
    "actor_role": "write",
    "at": "2024-03-01T12:00:00Z",
    "version": 2,
    "rubric": RUBRIC,
    "scores": {"s": 3.5, "n": None},
    "weighted_total": 1.75,
    "normalized": 0.5,
    "verdict": "pass",
    "source": "judge",
    "feedback": "fine",
    "delivery": "d1",
}
BASES = [
    BASE,
    {**BASE, "kind": "rated", "rating": 4, "scores": None, "rubric": None},
    {
        **BASE,
        "kind": "approved",
        "override": {"reason": "r" * 25},
        "deadline": "2024-03-02T00:00:00+02:00",
        "gate": "overridden",
        "evidence": [{"type": "criterion", "id": "s", "source": "auto", "n": [1, 2.5, None]}],
        "judge": {"model": "m", "prompt_version": "p", "tokens_in": 3, "latency_ms": 9},
        "head_sha": "a" * 40,
        "tree_sha": "b" * 40,
        "change_id": "c" * 100,
        "sig": "hmac-sha256:" + "0" * 64,
    },
]
RAW = "\x00raw:"
"""A value written into the JSON text as it is (`RAW + "1e309"`), for what JSON can spell but
Python cannot hold as written."""
AWKWARD: list[Any] = [
    None, True, False, 0, 1, -1, 2, 5, 6, 20, 2**31 - 1, 2**31, 10**30, 2**53, 2**53 + 1,
    1.0, 1.5, 0.0, -0.0, 1e308, 5e-324, 1e-9, 5.000000001, 0.999999999, float("nan"),
    float("inf"), RAW + "1e309", RAW + "-1e400", RAW + "NaN", RAW + "Infinity", RAW + "1E2",
    RAW + "1.0e0", RAW + "-0", RAW + "5.0", RAW + '"\\ud800"', RAW + '"\\ud83d\\ude00"',
    RAW + '"\\udc00x"', RAW + '"a\\u0000b"', RAW + '{"s": 1, "s": 2}',
    "", " ", "x", "5", " 5 ", "5.0", "1_000", "+5", "1e3", "0x10", "true", "yes", "off",
    "inf", "NaN", "o/r", "O/R", "a/b/c", "../x", "o/..", "./r", "-o/r", "o/r.git", "é日本",
    "\u2028", "😀", "x" * 100, "x" * 101, "x" * 200, "x" * 201, "r" * 19, "r" * 20,
    "2024-03-01T12:00:00Z", "2024-03-01T12:00:00+05:30", "2024-03-01T12:00:00-00:00",
    "2024-03-01T12:00:00.5Z", "2024-03-01T12:00:00.123456Z", "2024-03-01T12:00:00.1234567Z",
    "2024-03-01 12:00:00Z", "2024-03-01t12:00:00z", "2024-03-01T12:00:00", "2024-03-01",
    "2024-02-30T00:00:00Z", "2024-03-01T24:00:00Z", "2024-03-01T12:00:60Z", "0000-01-01T00:00:00Z",
    "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", "2024-03-01T12:00:00+24:00",
    "2024-03-01T12:00:00+23:59", "20240301T120000Z", "2024-03-01T12:00Z",
    "2024-03-01T12:00:00+0530", "2024-03-01T12:00:00.Z", 1709294400, "1709294400", 1709294400.5,
    [], {}, [1], [{}], [{"a": 1}], [{"a": float("nan")}], [{"a": {"b": [1e308, "x"]}}], [[]],
    {"a": 1}, {"s": 1}, {"s": "4"}, {"s": True}, {"s": 0}, {"s": 9}, {"s": 5.0000000001},
    {"zz": 1}, {"n": None}, {"s": None}, {"min": 1, "max": 5}, {"min": 5, "max": 5},
    {"min": "1", "max": 5}, {"min": 1, "max": 5, "open": True}, {"min": 1, "max": 5, "open": None},
    {"id": "r", "version": "1"}, {"id": "r", "version": 1}, {"weight": 1}, {"weight": 0},
    {"weight": 1, "nullable": None}, {"s": {"weight": 1, "nullable": "yes"}}, {"reason": "r" * 20},
    {"reason": "short"}, {"model": "m", "prompt_version": "p"},
    {"model": "m", "prompt_version": "p", "cached": 1},
    {"model": "m", "prompt_version": "p", "latency_ms": None, "tokens_in": None},
    "first_submission", "review_scored", "rated", "disputed", "nope", "admin", "none", "bot",
    "pass", "fail", "incomplete", "auto", "reviewer", "passed", "bypassed",
]  # fmt: skip
PYTHON_ONLY: list[Any] = [
    datetime(2024, 3, 1, 12, tzinfo=timezone.utc),
    datetime(2024, 3, 1, 12, 0, 0, 123456, tzinfo=timezone(timedelta(hours=-3))),
    datetime(2024, 3, 1, 12),
    datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=1))),
    Decimal("2.5"), Decimal("5"), (1, 2), ("a",), b"o/r", frozenset(),
    [{"at": datetime(2024, 3, 1, tzinfo=timezone.utc), "t": (1, 2)}], {"s": Decimal("2")},
]  # fmt: skip
"""Values only Python code can give (events made in code, not read from a line)."""
NESTED = [
    ("rubric", "id"), ("rubric", "version"), ("rubric", "scale"), ("rubric", "criteria"),
    ("rubric", "extra"), ("rubric", "scale", "min"), ("rubric", "scale", "max"),
    ("rubric", "scale", "open"), ("rubric", "scale", "extra"), ("rubric", "criteria", "s"),
    ("rubric", "criteria", "s", "weight"), ("rubric", "criteria", "n", "nullable"),
    ("rubric", "criteria", "s", "extra"), ("scores", "s"), ("scores", "n"), ("scores", "zz"),
    ("override", "reason"), ("override", "extra"), ("judge", "model"), ("judge", "prompt_version"),
    ("judge", "tokens_in"), ("judge", "tokens_out"), ("judge", "latency_ms"), ("judge", "cached"),
    ("judge", "extra"),
]  # fmt: skip
FIELDS = sorted({key for base in BASES for key in base} | {"rating", "tree_sha", "extra"})
PATHS = [(name,) for name in FIELDS] + NESTED
MISSING = object()
LINES_NOT_EVENTS = [
    "", "[]", "1", "null", '"x"', "{", "{}", "\ufeff{}", '{"kind": "nope"}', "{not json",
]  # fmt: skip


def with_value(values: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    """A copy of `values` with `path` set to `value` (or removed, for `MISSING`)."""
    out: dict[str, Any] = json.loads(json.dumps(values))
    where = out
    for part in path[:-1]:
        inner = where.get(part)
        if not isinstance(inner, dict):
            return out  # no such object in this base
        where = inner
    if value is MISSING:
        where.pop(path[-1], None)
    else:
        where[path[-1]] = value
    return out


def json_text(values: Any) -> str:
    """JSON text, with `RAW` values spelled as they are."""
    raws: list[str] = []

    def mark(value: Any) -> Any:
        if isinstance(value, str) and value.startswith(RAW):
            raws.append(value[len(RAW) :])
            return f"\x01{len(raws) - 1}\x01"
        if isinstance(value, dict):
            return {k: mark(v) for k, v in value.items()}
        if isinstance(value, list):
            return [mark(v) for v in value]
        return value

    text = json.dumps(mark(values))
    for number, raw in enumerate(raws):
        text = text.replace(f'"\\u0001{number}\\u0001"', raw)
    return text


def lines() -> Iterator[str]:
    """Every generated line: each base with each path set to each awkward value or dropped."""
    yield from LINES_NOT_EVENTS
    for base in BASES:
        text = json_text(base)
        yield from (text, text + " \n", text[:-1], text + "x", text[:-1] + ', "pr": "8"}')
        for path in PATHS:
            for value in [*AWKWARD, MISSING]:
                yield json_text(with_value(base, path, value))


def python_values() -> Iterator[Any]:
    """Every generated mapping of Python values: the lines that load as JSON, and each base
    with each field set to a value only Python code gives."""
    for line in lines():
        try:
            yield json.loads(line)
        except (ValueError, RecursionError):
            continue
    for base in BASES:
        for name in FIELDS:
            for value in PYTHON_ONLY:
                yield with_value(base, (name,), MISSING) | {name: value}


def outcome(read: Callable[[], Event]) -> str:
    """What reading gives: the worded refusal, or the event's line, its record (in field
    order) and its times to the microsecond."""
    try:
        event = read()
    except ValidationError as exc:
        return "refused: " + describe_validation(exc)
    except LedgerError as exc:
        return "refused: " + str(exc)
    record = json.dumps(event.model_dump(mode="json", exclude_none=True))
    times = [None if t is None else t.isoformat() for t in (event.at, event.deadline)]
    kinds = [type(getattr(event, name)).__name__ for name in ("weighted_total", "normalized")]
    return f"{event.to_line()}\n{record}\n{times} {kinds}"


def line_outcomes() -> Iterator[tuple[str, str]]:
    """Each generated line with what `event_from_line` gives for it."""
    for line in lines():
        yield line, outcome(partial(event_from_line, line))


def value_outcomes() -> Iterator[tuple[Any, str]]:
    """Each generated mapping with what `Event.model_validate` gives for it."""
    for values in python_values():
        yield values, outcome(partial(Event.model_validate, values))
