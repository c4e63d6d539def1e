"""A ledger line the fold cache vouches for is made (`Event.written`) into the event the ledger
reader makes of it, and a line that is not as rubricate writes it is refused (the first report
then reads the ledger with every check)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rubricate.ledger.event import Event
from tests.ledger.factory import event, scored
from tests.report.sample import sample_events

OVERRIDE = {"reason": "the failing check is a known flaky network test"}
HAND = {"id": "by-hand", "version": "1"}
JUDGE = {"model": "m", "prompt_version": "p1", "tokens_in": 3, "latency_ms": 40}


def test_every_line_reads_as_the_ledger_reader_reads_it() -> None:
    given = [
        *sample_events(30),
        scored("final_approval", 9, 9, "o", [4] * 5, gate="overridden", override=OVERRIDE),
        scored("first_submission", 9, 1, "j", [3] * 5, source="judge", judge=JUDGE),
        scored("review_scored", 9, 2, "n", {"a": None, "b": True}, rubric=HAND, verdict="pass"),
        event("final_approval", 9, 9, "d", deadline="2024-03-02T00:00:00Z", gate="passed"),
        event("disputed", 9, 19, "f", feedback="nope", evidence=[{"pr": 5, "repo": "a/b"}]),
    ]
    lines = [e.to_line() for e in given]
    made = [Event.written(json.loads(line)) for line in lines]
    assert made == [Event.model_validate_json(line) for line in lines]
    assert [e.to_line() for e in made] == lines
    rubrics = {id(e.rubric) for e in made if e.rubric is not None}
    assert len(rubrics) == 2  # one reference for each rubric


@pytest.mark.parametrize(
    "change",
    [
        {"colour": "red"},  # not a field of an event
        {"at": "2024-03-01T12:00:00+00:00"},  # valid, not as rubricate writes it
        {"at": "2024-03-01T12:00:00"},
        {"at": 5},
        {"deadline": "tomorrow"},
        {"pr": "1"},
        {"version": 1.0},
        {"rating": 3.0},
        {"rating": True},
        {"normalized": 1},
        {"scores": {"quality": 3}},
        {"scores": ["quality"]},
        {"kind": "liked"},
        {"author": None},
        {"schema_version": 2},
    ],
)
def test_a_line_not_as_rubricate_writes_it_is_refused(change: dict[str, Any]) -> None:
    written = {**json.loads(event("rated", 1, 1, "x", rating=3).to_line()), **change}
    with pytest.raises(ValueError, match="canonical line"):
        Event.written(written)


def test_a_line_missing_a_field_is_refused() -> None:
    written = json.loads(event("rated", 1, 1, "x", rating=3).to_line())
    del written["actor"]
    with pytest.raises(ValueError, match="canonical line"):
        Event.written(written)
    with pytest.raises(ValueError, match="canonical line"):
        Event.written(["not an object"])
