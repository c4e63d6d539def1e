"""Tests of wordstats.stats."""

from __future__ import annotations

import json
import sys
import unittest
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from wordstats.stats import count_words, report, top_words


class StatsTest(unittest.TestCase):
    def test_counts_ignore_case(self) -> None:
        assert count_words("The the THE cat")["the"] == 3

    def test_top_words_break_ties_alphabetically(self) -> None:
        top = top_words("b a c a b", limit=2)
        assert top == [{"word": "a", "count": 2}, {"word": "b", "count": 2}]

    def test_report_matches_the_committed_result(self) -> None:
        root = Path(__file__).resolve().parents[1]
        text = (root / "data" / "sample.txt").read_text(encoding="utf-8")
        result = report("data/sample.txt", text, date(2024, 1, 1))
        committed = json.loads((root / "out" / "result.json").read_text(encoding="utf-8"))
        assert result == committed


if __name__ == "__main__":
    unittest.main()
