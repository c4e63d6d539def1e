"""The exact number vectors and scoring rules of DESIGN.md section 2."""

from __future__ import annotations

import pytest

from rubricate.cli.rubric_cmd import resolve_rubric
from rubricate.errors import ScoreError
from rubricate.numbers import clamp01
from rubricate.rubric.model import Rubric, ScoreValue, normalize
from rubricate.rubric.scoring import check, score, weighted_total

from .helpers import checked, load

CHECKLIST = """\
assertions:
  - type: rubrics
    criteria:
      - {id: core-concept, outcome: Explains the divide-and-conquer idea, weight: 1, required: true}
      - {id: partition, outcome: Describes the partition step clearly, weight: 2}
      - {id: recursion, outcome: Shows how the halves are sorted recursively, weight: 2}
      - {id: complexity, outcome: States the average time complexity, weight: 1.5}
      - {id: worst-case, outcome: Names the quadratic worst case input, weight: 1}
"""

ANALYTIC = """\
assertions:
  - type: rubrics
    criteria:
      - id: accuracy
        outcome: Provides the correct answer with its reasoning
        weight: 2
        score_ranges: {0: Wrong, 5: Partly right, 10: Right}
      - id: clarity
        outcome: The explanation is clear to a newcomer
        weight: 1
        score_ranges: {0: Confusing, 5: Readable, 10: Clear}
"""


def agora() -> Rubric:
    return resolve_rubric("agora-v3")


def agora_scores(*values: float) -> dict[str, ScoreValue]:
    return dict(zip(agora().ids, values, strict=True))


@pytest.mark.parametrize(
    ("values", "total", "verdict"),
    [
        ((4, 3, 3, 3, 5), 3.5, "pass"),
        ((3, 4, 4, 3, 3), 3.45, "fail"),
        ((5, 5, 5, 5, 1), 4.6, "fail"),
        ((3, 5, 3, 3, 4), 3.5, "pass"),
    ],
)
def test_agora_vectors(values: tuple[float, ...], total: float, verdict: str) -> None:
    result = score(agora(), checked(agora(), agora_scores(*values)))
    assert result.weighted_total == pytest.approx(total, abs=1e-12)
    assert result.verdict == verdict


def test_agora_tolerance_case_is_below_three_and_a_half_in_plain_floats() -> None:
    raw = weighted_total(agora(), agora_scores(3, 5, 3, 3, 4))
    assert raw == 3.4999999999999996
    assert score(agora(), agora_scores(3, 5, 3, 3, 4)).verdict == "pass"


def test_agora_floor_names_the_failed_criterion() -> None:
    result = score(agora(), agora_scores(5, 5, 5, 5, 1))
    assert result.failed == ("format_correctness",)


@pytest.mark.parametrize(
    ("answers", "normalized", "verdict", "agentv"),
    [
        ((True, True, True, True, True), 1.0, "pass", None),
        ((True, True, True, True, False), 0.8667, "pass", None),
        ((False, True, True, True, True), 0.8667, "fail", "pass"),
        ((True, False, False, True, True), 0.4667, "fail", None),
    ],
)
def test_checklist_vectors(
    answers: tuple[bool, ...], normalized: float, verdict: str, agentv: str | None
) -> None:
    # AgentV: a failed required criterion fails its grader, not the test (graders/llm-grader.ts
    # 1815-1821 and orchestrator.ts 3131-3155 at 58f316c): the test passes on its score.
    # rubricate follows the seeds instead: `required: true` (core-concept) fails the test, and
    # AgentV's own verdict is kept beside it. The other criteria are required only by AgentV's
    # checklist default (not written), so they fail their grader alone.
    rubric = load(CHECKLIST).rubrics[0]
    result = score(rubric, checked(rubric, dict(zip(rubric.ids, answers, strict=True))))
    assert result.normalized == pytest.approx(normalized, abs=5e-5)
    assert result.verdict == verdict
    assert result.as_dict().get("agentv_verdict") == agentv


def test_checklist_accepts_one_and_zero() -> None:
    rubric = load(CHECKLIST).rubrics[0]
    assert check(rubric, "partition", 1) is True
    assert check(rubric, "partition", 0.0) is False
    with pytest.raises(ScoreError, match=r"partition: 0\.5 is not a checklist answer"):
        check(rubric, "partition", 0.5)


def test_analytic_vector() -> None:
    rubric = load(ANALYTIC).rubrics[0]
    result = score(rubric, checked(rubric, {"accuracy": 7, "clarity": 10}))
    assert result.normalized == pytest.approx(0.8, abs=1e-12)
    assert result.verdict == "pass"


def test_analytic_binary_answers_map_to_the_ends() -> None:
    rubric = load(ANALYTIC).rubrics[0]
    assert check(rubric, "accuracy", True) == 10.0
    assert check(rubric, "accuracy", False) == 0.0


def test_missing_scores_make_the_verdict_incomplete_not_zero() -> None:
    scores = agora_scores(5, 5, 5, 5, 5)
    del scores["quality"]
    result = score(agora(), scores)
    assert result.verdict == "incomplete"
    assert result.missing == ("quality",)
    assert result.weighted_total == pytest.approx(5.0)


def test_null_on_a_nullable_criterion_is_left_out() -> None:
    rubric = resolve_rubric("agent-run-quality")
    scores: dict[str, ScoreValue] = dict.fromkeys(rubric.ids, 60)
    scores["subagent_orchestration"] = None
    scores["self_extension"] = None
    result = score(rubric, checked(rubric, scores))
    assert result.verdict == "pass"
    assert result.weighted_total == 60


def test_open_scale_allows_scores_above_max() -> None:
    rubric = resolve_rubric("agent-run-quality")
    assert check(rubric, "goal_completion", 130) == 130
    assert normalize(rubric.scale, 130) == 1.3
    assert clamp01(normalize(rubric.scale, 130)) == 1.0
    with pytest.raises(ScoreError, match="expected a number >= 0"):
        check(rubric, "goal_completion", -1)


def test_code_review_required_graders_gate_the_test() -> None:
    rubric = resolve_rubric("code-review")
    base: dict[str, ScoreValue] = {"tests": 10, "security": 10, "readability": 10, "scope": 10}
    assert score(rubric, {**base, "correctness": 7}).verdict == "pass"
    failing = score(rubric, {**base, "correctness": 6})
    assert failing.verdict == "fail"
    assert failing.normalized == 0.0  # a required grader under its min_score zeroes the test


def test_code_review_min_score_is_a_normalized_bar() -> None:
    rubric = resolve_rubric("code-review")
    base: dict[str, ScoreValue] = {
        "correctness": 10,
        "security": 10,
        "readability": 10,
        "scope": 10,
    }
    assert score(rubric, {**base, "tests": 5}).verdict == "pass"
    assert score(rubric, {**base, "tests": 4}).verdict == "fail"
    with pytest.raises(ScoreError, match="not an integer"):
        checked(rubric, {**base, "tests": 4.9})


def test_null_on_a_required_criterion_is_refused() -> None:
    with pytest.raises(ScoreError, match="null is not allowed; expected a number from 1 to 5"):
        check(agora(), "quality", None)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 10**400, 6, 0.5])
def test_out_of_range_values_are_score_errors(value: float) -> None:
    with pytest.raises(
        ScoreError, match=r"quality: .* is out of range; expected a number from 1 to 5"
    ):
        check(agora(), "quality", value)


def test_non_numbers_are_score_errors() -> None:
    with pytest.raises(ScoreError, match="is not a score"):
        check(agora(), "quality", "4")  # type: ignore[arg-type]


def test_unknown_criteria_are_score_errors() -> None:
    with pytest.raises(ScoreError, match="unknown criterion 'speed'; valid ids: spec_adherence"):
        score(agora(), {"speed": 3})
