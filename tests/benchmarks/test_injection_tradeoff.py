"""The hindsight thresholds of `benchmarks/injection_tradeoff.py`, on items built here."""

from __future__ import annotations

import importlib
import math
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture
def tradeoff(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    return importlib.import_module("injection_tradeoff")


def test_a_kind_s_threshold_flags_at_most_its_budget_counting_rule_warnings_first(
    tradeoff: ModuleType,
) -> None:
    scored = tradeoff.Scored
    prose = [scored("r", "prose", p / 100, False) for p in range(100)]
    docs = [
        scored("r", "docs", 0.5, True),
        *(scored("r", "docs", p / 50, False) for p in range(49)),
    ]
    limits = tradeoff.thresholds_for([*prose, *docs], 0.05)
    flagged_prose = [i for i in prose if tradeoff.flagged(i, limits)]
    assert [i.worst for i in flagged_prose] == [0.95, 0.96, 0.97, 0.98, 0.99]
    # two of the fifty docs items may be flagged: the ruled one, then the highest-scoring one
    flagged_docs = [i for i in docs if tradeoff.flagged(i, limits)]
    assert sorted(i.worst for i in flagged_docs) == [0.5, 0.96]


def test_rules_over_the_budget_leave_the_detector_nothing_and_an_empty_budget_none(
    tradeoff: ModuleType,
) -> None:
    scored = tradeoff.Scored
    ruled = [scored("r", "code", 0.1, True), *(scored("r", "code", 0.9, False) for _ in range(9))]
    assert tradeoff.thresholds_for(ruled, 0.0) == {"code": math.inf}
    everything = tradeoff.thresholds_for([scored("r", "data", 0.3, False)], 1.0)
    assert everything == {"data": 0.0}


def test_a_row_counts_held_out_shares_per_source_and_names_those_below_forty_percent(
    tradeoff: ModuleType,
) -> None:
    scored = tradeoff.Scored
    benign = [scored("repo", "prose", 0.2, False), scored("repo", "prose", 0.8, False)]
    payloads = [
        scored("a", "prose", 0.9, False),
        scored("a", "prose", 0.1, True),
        scored("b", "prose", 0.5, False),
        scored("b", "docs", 0.99, False),
    ]
    found = tradeoff.row(benign, payloads, {"prose": 0.7, "docs": math.inf})
    assert found["false_positives"] == 0.5
    assert found["held_out"] == 0.5
    assert found["per_source"] == {"a": 1.0, "b": 0.0}
    assert found["sources_below_40"] == ["b"]
    assert found["thresholds"] == {"docs": "never", "prose": 0.7}
