"""A verdict is `fail` as soon as no missing score could make the rubric pass (DESIGN.md §2)."""

from __future__ import annotations

import pytest

from rubricate.cli.rubric_cmd import resolve_rubric
from rubricate.rubric.model import Rubric, ScoreValue
from rubricate.rubric.scoring import best_reachable_total, score

from .helpers import checked, load
from .test_scoring import CHECKLIST


def agora() -> Rubric:
    return resolve_rubric("agora-v3")


def without(missing: str, **values: float) -> dict[str, ScoreValue]:
    scores: dict[str, ScoreValue] = dict(zip(agora().ids, (3.0,) * 5, strict=True))
    scores.update(values)
    del scores[missing]
    return scores


def test_a_scored_criterion_below_min_each_decides_a_fail() -> None:
    result = score(agora(), without("quality", verifiability=1.0))
    assert result.verdict == "fail"
    assert result.missing == ("quality",)
    assert result.failed == ("verifiability",)
    assert result.decided


def test_a_best_total_that_exactly_reaches_min_total_stays_incomplete() -> None:
    scores = without("quality")
    result = score(agora(), scores)
    assert best_reachable_total(agora(), scores, ("quality",)) == pytest.approx(3.5)
    assert result.verdict == "incomplete"
    assert not result.decided


def test_a_best_total_just_below_min_total_is_a_decided_fail() -> None:
    result = score(agora(), without("quality", format_correctness=2.0))
    assert result.best_total == pytest.approx(3.4)
    assert result.verdict == "fail"
    assert result.failed == ()


def test_the_best_total_is_compared_with_the_tolerance() -> None:
    scores = without("completeness", verifiability=3.0, format_correctness=4.0)
    best = best_reachable_total(agora(), scores, ("completeness",))
    assert best is not None
    assert best < 3.5
    assert best == pytest.approx(3.5, abs=1e-9)
    assert score(agora(), scores).verdict == "incomplete"


def test_the_full_scores_just_at_min_total_pass_with_the_tolerance() -> None:
    scores = without("completeness", verifiability=3.0, format_correctness=4.0)
    scores["completeness"] = 5.0
    assert score(agora(), scores).verdict == "pass"


def test_nothing_scored_is_incomplete() -> None:
    result = score(agora(), {})
    assert result.verdict == "incomplete"
    assert result.best_total == pytest.approx(5.0)


def test_a_checklist_reaching_exactly_the_agentv_bar_is_not_decided() -> None:
    rubric = load(CHECKLIST).rubrics[0]
    scores = checked(rubric, {"core-concept": True, "partition": True, "complexity": False})
    result = score(rubric, scores)
    assert result.best_total == pytest.approx(0.8)
    assert result.verdict == "incomplete"


def test_a_checklist_below_the_agentv_bar_is_decided() -> None:
    rubric = load(CHECKLIST).rubrics[0]
    scores = checked(rubric, {"partition": False, "complexity": False})
    result = score(rubric, scores)
    assert result.verdict == "fail"


def test_a_required_agentv_criterion_that_failed_decides_the_test() -> None:
    # AgentV: an unsatisfied required criterion fails its grader; the test is decided by the
    # weighted score alone (graders/llm-grader.ts 1815-1821, orchestrator.ts 3131-3155 at
    # 58f316c), and the best reachable score is 6.5 / 7.5 >= 0.8. rubricate follows the seeds:
    # `required: true` failed, so the test fails now; AgentV's own verdict is kept beside.
    rubric = load(CHECKLIST).rubrics[0]
    result = score(rubric, checked(rubric, {"core-concept": False}))
    assert result.verdict == "fail"
    assert result.as_dict()["agentv_verdict"] == "incomplete"
    assert result.failed == ("core-concept",)
    assert result.best_total == pytest.approx(6.5 / 7.5)


def test_a_criterion_required_only_by_agentv_default_fails_its_grader_alone() -> None:
    rubric = load(CHECKLIST).rubrics[0]
    result = score(rubric, checked(rubric, {"worst-case": False}))
    assert result.verdict == "incomplete"
    assert result.failed == ("worst-case",)
    assert "agentv_verdict" not in result.as_dict()


def test_an_open_scale_is_never_decided_by_its_total() -> None:
    rubric = resolve_rubric("agent-run-quality")
    first = rubric.ids[0]
    result = score(rubric, checked(rubric, {first: 0}))
    assert result.best_total is None
    assert result.verdict == "incomplete"
