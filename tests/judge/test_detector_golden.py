"""The detector's spans and probabilities, and the scan's findings, are exactly what an
earlier implementation gave on a built fixture (speed changes must not move a finding)."""

from __future__ import annotations

import json
from pathlib import Path

from rubricate.judge.scan import _plain_latin, _plain_line

from .detector_fixture import fixture_detector, fixture_text, golden

GOLDEN = Path(__file__).parent / "data" / "detector_golden.json"


def test_spans_probabilities_and_findings_match_the_recorded_ones_exactly() -> None:
    expected = json.loads(GOLDEN.read_text(encoding="utf-8"))
    got = json.loads(golden(fixture_text(), fixture_detector()))
    assert len(got["scored"]) == len(expected["scored"])
    for mine, theirs in zip(got["scored"], expected["scored"], strict=True):
        assert mine == theirs  # floats compared exactly
    assert got["findings"] == expected["findings"]


def test_the_fixture_exercises_flags_and_every_reading_path() -> None:
    expected = json.loads(GOLDEN.read_text(encoding="utf-8"))
    probabilities = [p for _a, _b, p, _s in expected["scored"]]
    assert any(p >= 0.5 for p in probabilities)
    assert any(p < 0.5 for p in probabilities)
    assert any(a != b for a, b, _p, _s in expected["scored"]), "blocks of lines are scored"
    text = fixture_text()
    for marker in ("\\n", '": "', "1gn0r3", "i g n o r e", "忽略", "\u200b", "\r"):
        assert marker in text


def test_the_rules_read_non_ascii_lines_alone_as_they_would_the_whole_text() -> None:
    text = fixture_text()
    assert not text.isascii()
    assert _plain_latin(text) == _plain_line(text)
