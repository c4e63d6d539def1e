"""What the canonical event reader must not decide itself: it reads a canonical line alone (a `Z`
time on every Python), and leaves to the model whatever the model's parser reads otherwise: bytes
that are not plain UTF-8, and values nested past the parser's limit. Both readers then agree."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rubricate.ledger import records
from rubricate.ledger.event import Event
from rubricate.ledger.event_model import judged
from tests.ledger.event_inputs import BASE

LINE = json.dumps(BASE, sort_keys=True)


def outcome(read: Any) -> str:
    try:
        return Event.model_dump(read()) and "read"
    except ValueError as exc:
        return f"refused: {exc}"


def test_a_canonical_line_with_a_z_time_is_read_without_the_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_model(*_args: object) -> None:
        raise AssertionError("the model was asked")

    monkeypatch.setattr(records, "_judged", no_model)
    event = Event.model_validate_json(LINE)
    assert event.at.isoformat() == "2024-03-01T12:00:00+00:00"
    assert Event.model_validate_json(LINE.encode()).to_line() == event.to_line()


@pytest.mark.parametrize(
    "text",
    [
        b"\xef\xbb\xbf" + LINE.encode(),
        LINE.encode("utf-16-le"),
        LINE.encode("utf-32"),
        "\ufeff" + LINE,
    ],
    ids=["utf-8 mark", "utf-16", "utf-32", "text with a mark"],
)
def test_text_the_model_s_parser_refuses_is_refused(text: str | bytes) -> None:
    found = outcome(lambda: Event.model_validate_json(text))
    assert found.startswith("refused: "), found
    assert found == outcome(lambda: judged(Event, None, text))


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    "depth", [records.PLAIN_DEPTH - 1, records.PLAIN_DEPTH, 150, 196, 197, 198, 199, 201, 400]
)
def test_deeply_nested_evidence_reads_as_the_model_reads_it(depth: int) -> None:
    line = json.dumps({**BASE, "evidence": [{"type": "x", "v": nested(depth)}]})
    assert outcome(lambda: Event.model_validate_json(line)) == outcome(
        lambda: judged(Event, None, line)
    )


def test_the_deepest_lines_are_refused_as_before() -> None:
    line = json.dumps({**BASE, "evidence": [{"type": "x", "v": nested(300)}]})
    assert outcome(lambda: Event.model_validate_json(line)).startswith("refused: ")
