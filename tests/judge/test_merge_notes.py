"""Notes about criteria the judge has scored are dropped from the merged report."""

from __future__ import annotations

from rubricate.judge.merge import _still_true


def test_notes_about_scored_criteria_are_dropped() -> None:
    notes = [
        "quality: no automatic score without the judge",
        "no judge: key",
        "spec: not scored: x",
    ]
    assert _still_true(notes, {"quality": 4}) == ["no judge: key", "spec: not scored: x"]


def test_notes_stay_when_nothing_was_scored() -> None:
    notes = ["quality: no automatic score without the judge"]
    assert _still_true(notes, {}) == notes
