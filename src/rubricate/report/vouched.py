"""Events of ledger lines the fold cache vouches for (pure: JSON values in, events out).

A data branch's fold cache is written from its shards as they are (it names their tree) after
every line was read and checked field by field: it lists each line that was refused or repeated,
and holds what every job's events fold to. A line it does not list is an event that passed
those checks, so a reader of the same shards need not check each field again: `VouchedReader`
makes the event from its JSON values as they are, with the exact JSON type of each field whose
value is shown (a number as the ledger writes it: an integer where the event holds one, a
float where it holds one), its times in UTC as `rfc3339` writes them, and its rubric, override
and judge records read as the ledger reader reads them (a rubric once for all the lines that
repeat it). Anything else is refused (a `ValueError` that says it is `NOT_AS_WRITTEN`): the
report then reads the ledger with every check. The caller folds the events and compares what
they fold to with the cache's facts.
"""

from __future__ import annotations

import dataclasses
import marshal
import typing
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any, Final

from rubricate.ledger.event import (
    SCHEMA_VERSION,
    Event,
    EventKind,
    JudgeInfo,
    Override,
    RubricRef,
)
from rubricate.ledger.records import made

_FIELDS: Final = frozenset(f.name for f in dataclasses.fields(Event))
_DEFAULTS: Final = {
    f.name: f.default for f in dataclasses.fields(Event) if f.default is not dataclasses.MISSING
}
_KINDS: Final = frozenset(typing.get_args(EventKind))
_RECORDS: Final = (("override", Override), ("judge", JudgeInfo))
NOT_AS_WRITTEN = "not as rubricate writes it"
"""What every refusal of a line says."""
_SHARED = 256
"""How many distinct rubrics one reader keeps to share."""


class VouchedReader:
    """Makes the events of vouched ledger lines, sharing each distinct rubric reference."""

    def __init__(self) -> None:
        self._rubrics: dict[bytes, RubricRef] = {}

    def event(self, values: Any) -> Event:
        """The event of one line's JSON object; ValueError when it is not one as written (its own,
        `NOT_AS_WRITTEN`, or its rubric, override or judge record's)."""
        if type(values) is not dict:
            raise ValueError(f"not a JSON object ({NOT_AS_WRITTEN})")
        held = _DEFAULTS.copy()
        held.update(values)
        if len(held) != len(_FIELDS):  # a field missing, or one that is none of the event's
            raise ValueError(f"not an event's fields ({NOT_AS_WRITTEN})")
        _check(held)
        held["at"] = _time(held["at"])
        if held["deadline"] is not None:
            held["deadline"] = _time(held["deadline"])
        if held["rubric"] is not None:
            held["rubric"] = self._rubric(held["rubric"])
        for name, kind in _RECORDS:
            if held[name] is not None:
                held[name] = kind.model_validate(held[name])
        return made(Event, held)

    def _rubric(self, value: dict[str, Any]) -> RubricRef:
        key = marshal.dumps(value)  # of JSON values: equal bytes, equal values (in key order)
        shared = self._rubrics.get(key)
        if shared is None:
            shared = RubricRef.model_validate(value)
            if len(self._rubrics) >= _SHARED:
                self._rubrics.clear()
            self._rubrics[key] = shared
        return shared


def _check(held: Mapping[str, Any]) -> None:
    """Each shown value of the exact type the event holds (a lax one, which the ledger reader
    would have turned into it, is not taken as it is)."""
    rating, scores = held["rating"], held["scores"]
    if not (
        type(held["pr"]) is int
        and type(held["version"]) is int
        and type(held["schema_version"]) is int
        and held["schema_version"] == SCHEMA_VERSION
        and held["kind"] in _KINDS
        and type(held["id"]) is str
        and type(held["repo"]) is str
        and type(held["author"]) is str
        and type(held["actor"]) is str
        and (rating is None or type(rating) is int)
        and (held["normalized"] is None or type(held["normalized"]) is float)
        and (held["weighted_total"] is None or type(held["weighted_total"]) is float)
        and (scores is None or (type(scores) is dict and _scores(scores)))
    ):
        raise ValueError(f"a field of another type ({NOT_AS_WRITTEN})")


def _scores(scores: Mapping[str, Any]) -> bool:
    for value in scores.values():
        if not (value is None or type(value) is float or type(value) is bool):
            return False
    return True


def _time(value: Any) -> datetime:
    """A time as `rfc3339` writes it (`YYYY-MM-DDTHH:MM:SSZ`), in UTC."""
    if type(value) is not str or value[-1:] != "Z":
        raise ValueError(f"a time not in UTC ({NOT_AS_WRITTEN})")
    try:
        parsed = datetime.fromisoformat(value[:-1] + "+00:00")
    except ValueError:
        raise ValueError(f"{value!r} is not a time ({NOT_AS_WRITTEN})") from None
    if parsed.tzinfo is not timezone.utc:
        raise ValueError(f"a time not in UTC ({NOT_AS_WRITTEN})")
    return parsed
