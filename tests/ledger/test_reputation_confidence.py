"""How sure reputation is: Wilson intervals, provisional authors, and `ranked` toward the mean."""

from __future__ import annotations

from typing import Any

import pytest

from rubricate.ledger.confidence import shrunk, wilson
from rubricate.ledger.event import Event
from rubricate.ledger.reputation import compute_reputation
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.ledger.verify import reputation_text
from tests.ledger.factory import completed_job, event

PERFECT = [5, 5, 5, 5, 5]
GOOD = [4, 4, 4, 4, 4]


def _ledger() -> list[Event]:
    """`lucky` has one perfect job; `steady` twenty perfect ones and one abandoned; ten others
    one good job and one abandoned each."""
    events = completed_job(1, PERFECT, PERFECT, author="lucky")
    for pr in range(2, 22):
        events += completed_job(pr, PERFECT, PERFECT, hours=pr, author="steady")
    events += _abandoned(30, "steady")
    for i in range(10):
        events += completed_job(40 + i, GOOD, GOOD, author=f"crowd{i}")
        events += _abandoned(60 + i, f"crowd{i}")
    return events


def _abandoned(pr: int, author: str) -> list[Event]:
    return [
        event("first_submission", pr, 40, f"o{pr}", author=author),
        event("abandoned", pr, 41, f"x{pr}", author=author),
    ]


def _authors(config: ReputationConfig | None = None) -> dict[str, Any]:
    document = compute_reputation(_ledger(), config or ReputationConfig())
    authors: dict[str, Any] = document["repos"]["o/r"]["authors"]
    return authors


def test_wilson_interval_matches_the_formula() -> None:
    low, high = wilson(0.5, 10) or (0, 0)
    assert (low, high) == (pytest.approx(0.236593, abs=1e-6), pytest.approx(0.763407, abs=1e-6))
    low, high = wilson(1.0, 1) or (0, 0)
    assert (low, high) == (pytest.approx(0.206549, abs=1e-6), 1.0)
    assert wilson(None, 3) is None
    assert wilson(0.7, 0) is None


def test_shrunk_weighs_the_mean_as_prior_jobs() -> None:
    assert shrunk(1.0, 1, 0.5, 3) == pytest.approx(0.625)
    assert shrunk(1.0, 1, 0.5, 0) == 1.0
    assert shrunk(None, 0, 0.5, 3) is None
    assert shrunk(0.8, 4, None, 3) == 0.8


def test_one_lucky_job_does_not_outrank_many_good_ones() -> None:
    authors = _authors()
    lucky, steady = authors["lucky"], authors["steady"]
    assert lucky["reputation"] > steady["reputation"]  # Agora's formula, unchanged
    assert steady["ranked"] > lucky["ranked"]
    assert lucky["provisional"] is True
    assert steady["provisional"] is False


def test_each_component_shows_its_interval_and_ranked_value() -> None:
    completion = _authors()["steady"]["components"]["completion_rate"]
    assert completion["value"] == pytest.approx(20 / 21, abs=1e-6)
    assert completion["n"] == 21
    low, high = wilson(20 / 21, 21) or (0, 0)
    assert completion["interval"] == [pytest.approx(low, abs=1e-6), pytest.approx(high, abs=1e-6)]
    mean = 31 / 42  # the repository's jobs pooled: 31 completed of 42 closed
    assert completion["ranked"] == pytest.approx((20 + 5 * mean) / 26, abs=1e-6)


def test_the_repository_entry_records_its_means() -> None:
    document = compute_reputation(_ledger(), ReputationConfig())
    means = document["repos"]["o/r"]["means"]
    assert means["completion_rate"] == pytest.approx(31 / 42, abs=1e-6)
    assert means["dispute_penalty"] == 1.0
    assert means["timeliness_score"] is None


def test_no_prior_makes_ranked_equal_reputation() -> None:
    for entry in _authors(ReputationConfig(prior_jobs=0)).values():
        assert entry["ranked"] == entry["reputation"]


def test_provisional_threshold_is_configurable() -> None:
    authors = _authors(ReputationConfig(provisional_below=1))
    assert authors["lucky"]["provisional"] is False


def test_the_table_sorts_by_ranked_by_default() -> None:
    document = compute_reputation(_ledger(), ReputationConfig())
    rows = reputation_text(document).splitlines()
    assert rows[0].split()[:4] == ["repo", "author", "ranked", "reputation"]
    assert [row.split()[1] for row in rows[1:3]] == ["steady", "lucky"]
    assert rows[2].split()[4] == "1*"  # one completed job, provisional
    by_reputation = reputation_text(document, sort="reputation").splitlines()
    assert [row.split()[1] for row in by_reputation[1:3]] == ["lucky", "steady"]
