"""Moments of hand-written ledgers whose rubric field is only `{id, version}`."""

from __future__ import annotations

import pytest

from rubricate.ledger.event import RubricRef
from rubricate.ledger.fold import fold_job

from .factory import scored

BARE = RubricRef(id="agora-v3", version="3")
ALL = {"spec_adherence": 2, "completeness": 2, "quality": 2, "verifiability": 2, "format": 2}


def job(first: dict[str, float], first_verdict: str) -> list:  # type: ignore[type-arg]
    return [
        scored(
            "first_submission", 7, 0, "pr:opened:7", first, source="auto", rubric=BARE,
            verdict=first_verdict, weighted_total=1.5, normalized=0.125,
        ),
        scored(
            "final_approval", 7, 10, "pr:closed:7", ALL, rubric=BARE, gate="passed",
            verdict="fail", weighted_total=2.0, normalized=0.25,
        ),
    ]  # fmt: skip


def test_a_decided_fail_with_scores_missing_is_not_complete() -> None:
    """The first moment lacks `quality`, which the final approval scored: left out."""
    partial = {k: v for k, v in ALL.items() if k != "quality"}
    folded = fold_job(job(partial, "fail"))
    assert folded.first is not None
    assert not folded.first.complete
    assert folded.final is not None
    assert folded.final.complete
    assert folded.facts.rubric_quality is None


def test_a_fail_with_every_criterion_scored_still_counts() -> None:
    folded = fold_job(job(dict(ALL), "fail"))
    assert folded.first is not None
    assert folded.first.complete
    assert folded.facts.rubric_quality == pytest.approx(0.7 * 0.125 + 0.3 * 0.25)


def test_a_null_not_applicable_score_is_not_missing() -> None:
    folded = fold_job(job({**ALL, "quality": None}, "fail"))  # type: ignore[dict-item]
    assert folded.first is not None
    assert folded.first.complete
