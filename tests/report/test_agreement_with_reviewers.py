"""Calibration: a machine's agreement with reviewers, criterion by criterion."""

from __future__ import annotations

from rubricate.report.calibration import MIN_PAIRS, agreement
from rubricate.report.scores import latest_scores
from tests.ledger.factory import scored


def test_under_thirty_pairs_is_insufficient_data() -> None:
    events = [
        scored("first_submission", pr, pr, f"a{pr}", [3] * 5, source="auto")
        for pr in range(1, MIN_PAIRS)
    ] + [scored("review_scored", pr, pr + 1, f"b{pr}", [4] * 5) for pr in range(1, MIN_PAIRS)]
    scores = latest_scores(events)
    pairs = [
        (s["heuristic"], s["reviewer"]) for (_, _, _, c), s in scores.items() if c == "quality"
    ]
    assert agreement(pairs) == {"n": MIN_PAIRS - 1, "status": "insufficient data"}
