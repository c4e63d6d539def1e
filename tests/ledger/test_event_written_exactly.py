"""`Event.written` takes JSON values as an event's own only when they are exactly what the event
writes: then `json.dumps` of them is the event's canonical line, byte for byte. It takes the
canonical form of every event the canonical reader reads. A bulk writer that makes its lines
itself relies on it, instead of dumping every event from its model."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rubricate.errors import Undecided
from rubricate.ledger.event import Event
from rubricate.ledger.records import read_values
from tests.ledger.event_inputs import BASES, python_values


def _line(values: Any) -> str | None:
    """The canonical line of the event these values read as, when they read as one."""
    try:
        return Event.model_validate(values).to_line()
    except ValueError:
        return None


def _left_to_the_model(values: dict[str, Any]) -> bool:
    """Whether the canonical reader leaves these values to the model (a lone surrogate, say):
    they are no canonical line's, whatever text they dump to."""
    try:
        read_values(Event, values)
    except Undecided:
        return True
    return False


def _text(values: Any) -> str | None:
    try:
        return json.dumps(values, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None


def test_values_are_taken_exactly_when_their_text_is_the_event_s_line() -> None:
    taken = refused = 0
    for given in python_values():
        if type(given) is not dict:
            continue
        line = _line(given)
        for values in (given, None if line is None else json.loads(line)):
            if values is None:
                continue
            text = _text(values)
            try:
                event = Event.written(values)
            except ValueError:
                assert text is None or text != line or _left_to_the_model(values), text
                refused += 1
                continue
            taken += 1
            assert event.to_line() == text == line
            assert event.model_dump() == Event.model_validate(values).model_dump()
    assert taken > 1000
    assert refused > 1000


DROP = object()


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("scores", "s"), 4),  # an integer where a float is written
        (("rubric", "scale", "min"), 1),
        (("at",), "2024-03-01T12:00:00+00:00"),  # a time not as the ledger writes it
        (("at",), "2024-03-01T12:00:00.5Z"),
        (("actor_role",), DROP),  # a default other than null left out
        (("rubric", "criteria", "s", "nullable"), DROP),
        (("feedback",), None),  # a null written
        (("rubric", "scale", "open"), None),
    ],
)
def test_a_value_not_as_the_event_writes_it_is_refused(path: tuple[str, ...], value: Any) -> None:
    values = _exact(BASES[0])
    assert Event.written(values).to_line() == json.dumps(values, sort_keys=True)
    where = values
    for part in path[:-1]:
        where = where[part]
    if value is DROP:
        del where[path[-1]]
    else:
        where[path[-1]] = value
    with pytest.raises(ValueError, match="canonical line"):
        Event.written(values)


def test_the_values_are_left_as_they_are() -> None:
    values = _exact(BASES[0])
    before = json.dumps(values, sort_keys=True)
    Event.written(values)
    assert json.dumps(values, sort_keys=True) == before
    assert type(values["rubric"]) is dict


def _exact(values: dict[str, Any]) -> dict[str, Any]:
    exact: dict[str, Any] = json.loads(Event.model_validate(values).to_line())
    return exact
