"""AgentV score vectors: the expected numbers were computed by hand from AgentV's own source.

EntityProcess/agentv at 58f316c (`packages/core/src/evaluation/`): a checklist grader scores
satisfied weight / total weight and fails on an unsatisfied required criterion
(`graders/llm-grader.ts` 1785-1823); an analytic grader averages reply ÷ 10 and fails under a
criterion's `min_score` (1858-1923); a grader passes at 0.8 (`graders/scoring.ts` 24-28);
`negate` gives 1 - score (103-125); the test score is the weighted mean of the graders, or 0
when a required grader is under its `min_score` (else the threshold), and passes at the
threshold (`orchestrator.ts` 3131-3155, 3940-3953). v4.42.4 reads `required: 0.6` as
`min_score: 0.6` and `required: true` on an analytic criterion as 10/10 (`graders/llm-grader.ts`
1314-1330); v2.5.8 adds the 0.6-0.8 `borderline` band (`evaluators/scoring.ts` 3-11). Each
expected test score is the float AgentV computes, in the order it sums.
"""

from __future__ import annotations

from typing import Any

import pytest

from rubricate.errors import ScoreError
from rubricate.rubric.agentv.score import AgentVScoreResult
from rubricate.rubric.loader import load_rubrics
from rubricate.rubric.model import Rubric, ScoreValue
from rubricate.rubric.scoring import score
from tests.rubric.helpers import checked

from .fixtures import CURRENT, EVALCASES, V4

T, F = True, False
FIXTURES = {"current": CURRENT, "v4": V4, "evalcases": EVALCASES}

# (fixture, test, scores, AgentV test score, AgentV's verdict, grader verdicts, what it pins);
# where a required criterion failed, rubricate's verdict is `fail` and AgentV's is kept beside.
VECTORS: list[tuple[str, str, dict[str, Any], float, str, list[str], str]] = [
    (
        "current",
        "five",
        dict.fromkeys(("rubric-1", "rubric-2", "rubric-3", "rubric-4", "rubric-5"), T),
        1.0,
        "pass",
        ["pass"],
        "all satisfied",
    ),
    (
        "current",
        "five",
        {"rubric-1": T, "rubric-2": T, "rubric-3": F, "rubric-4": T, "rubric-5": T},
        0.8,
        "pass",
        ["fail"],
        "a default-required criterion fails its grader, not the test",
    ),
    (
        "current",
        "five",
        {"rubric-1": T, "rubric-2": F, "rubric-3": F, "rubric-4": T, "rubric-5": T},
        0.6,
        "fail",
        ["fail"],
        "under default_test.threshold 0.7",
    ),
    (
        "current",
        "strict",
        {"rubric-1": T, "rubric-2": T, "rubric-3": F, "rubric-4": T, "rubric-5": T},
        0.8,
        "fail",
        ["fail"],
        "per-test threshold 0.9",
    ),
    (
        "current",
        "with-defaults",
        {"llm-rubric.rubric-1": T, "rubric-2": T, "llm-rubric-2.rubric-1": F},
        2 / 3,
        "fail",
        ["pass", "fail"],
        "default_test graders come after the test's",
    ),
    (
        "current",
        "gated",
        {"safety.rubric-1": T, "rubric-2": F, "helpfulness.rubric-1": T},
        0.0,
        "fail",
        ["fail", "pass"],
        "required grader under min_score; weighted 0.95",
    ),
    (
        "current",
        "gated",
        {"safety.rubric-1": T, "rubric-2": T, "helpfulness.rubric-1": T},
        1.0,
        "pass",
        ["pass", "pass"],
        "required grader clears its bar",
    ),
    (
        "current",
        "gated",
        {"safety.rubric-1": T, "rubric-2": T, "helpfulness.rubric-1": F},
        0.1,
        "fail",
        ["pass", "fail"],
        "grader weights 1 and 9",
    ),
    (
        "current",
        "merged",
        {"correct": T, "reasoned": T, "rubric-1": F},
        0.75,
        "pass",
        ["pass", "fail"],
        "merge key with weight: 3 override",
    ),
    (
        "current",
        "analytic",
        {"accuracy": 6, "clarity": 9},
        0.7000000000000001,
        "pass",
        ["fail"],
        "score between range keys; grader bar 0.8, test 0.7",
    ),
    (
        "current",
        "analytic",
        {"accuracy": 5, "clarity": 10},
        2 / 3,
        "fail",
        ["fail"],
        "under the criterion's min_score",
    ),
    (
        "current",
        "three-analytic",
        {"first": 7, "second": 8, "third": 9},
        0.7999999999999999,
        "pass",
        ["pass"],
        "AgentV fails this; rubricate's 1e-9 tolerance passes it",
    ),
    (
        "current",
        "negated",
        {"leaks.rubric-1": F, "llm-rubric.rubric-1": T},
        1.0,
        "pass",
        ["pass", "pass"],
        "negate: 1 - 0",
    ),
    (
        "current",
        "negated",
        {"leaks.rubric-1": T, "llm-rubric.rubric-1": T},
        0.5,
        "fail",
        ["fail", "pass"],
        "negate: 1 - 1",
    ),
    (
        "current",
        "only-criteria",
        {"rubric-1": T},
        1.0,
        "pass",
        ["pass"],
        "criteria: alone is one required criterion",
    ),
    (
        "current",
        "only-criteria",
        {"rubric-1": F},
        0.0,
        "fail",
        ["fail"],
        "criteria: alone is one required criterion",
    ),
    (
        "v4",
        "depth",
        {"accuracy": 9, "clarity": 7, "rubric-1": T},
        0.9,
        "pass",
        ["fail", "pass"],
        "required: true on analytic means 10/10 (grader only)",
    ),
    (
        "v4",
        "depth",
        {"accuracy": 10, "clarity": 6, "rubric-1": T},
        0.9,
        "pass",
        ["fail", "pass"],
        "required_min_score 7 fails the grader",
    ),
    (
        "v4",
        "depth",
        {"accuracy": 5, "clarity": 6, "rubric-1": T},
        0.0,
        "fail",
        ["fail", "pass"],
        "required: 0.6 is min_score 0.6 of a required grader",
    ),
    (
        "evalcases",
        "inline",
        {"rubric-1": T, "rubric-2": T, "rubric-3": F, "tone": T},
        0.8333333333333333,
        "pass",
        ["fail", "pass"],
        "inline rubrics first, then the file's evaluators",
    ),
    (
        "evalcases",
        "inline",
        {"rubric-1": T, "rubric-2": F, "rubric-3": F, "tone": T},
        2 / 3,
        "fail",
        ["fail", "pass"],
        "borderline band",
    ),
    (
        "evalcases",
        "own",
        {"accuracy": 7},
        0.7,
        "fail",
        ["fail"],
        "case evaluators replace the file's; required_min_score 8",
    ),
    ("evalcases", "own", {"accuracy": 8}, 0.8, "pass", ["pass"], "required_min_score 8 reached"),
]


def _rubric(fixture: str, case: str) -> Rubric:
    loaded = load_rubrics(FIXTURES[fixture], f"{fixture}.yaml")
    return next(r for r in loaded.rubrics if r.case == case)


@pytest.mark.parametrize(
    ("fixture", "case", "scores", "agentv", "verdict", "graders", "why"),
    VECTORS,
    ids=[f"{v[0]}-{v[1]}-{i}" for i, v in enumerate(VECTORS)],
)
def test_agentv_vectors(
    fixture: str,
    case: str,
    scores: dict[str, ScoreValue],
    agentv: float,
    verdict: str,
    graders: list[str],
    why: str,
) -> None:
    rubric = _rubric(fixture, case)
    result = score(rubric, checked(rubric, scores))
    assert isinstance(result, AgentVScoreResult)
    assert result.normalized == pytest.approx(agentv, abs=1e-9), why
    assert (result.agentv_verdict or result.verdict) == verdict, why
    assert [g.verdict for g in result.graders] == graders, why
    if result.required_failed:  # rubricate's own rule: a failed required criterion fails
        assert (result.verdict, result.agentv_verdict) == ("fail", verdict), why


def test_borderline_is_reported_for_the_evalcases_form() -> None:
    rubric = _rubric("evalcases", "inline")
    scores: dict[str, ScoreValue] = {"rubric-1": T, "rubric-2": F, "rubric-3": F, "tone": T}
    result = score(rubric, checked(rubric, scores))
    assert (result.verdict, result.band) == ("fail", "borderline")
    assert result.as_dict()["band"] == "borderline"


def test_the_tolerance_case_is_below_the_threshold_in_plain_floats() -> None:
    assert (0.7 + 0.8 + 0.9) / 3 == 0.7999999999999999


@pytest.mark.parametrize("value", [6.5, 0.25])
def test_fractional_analytic_replies_are_refused(value: float) -> None:
    # AgentV's reply schema takes integers only (graders/llm-grader.ts 170-175); a reply
    # that fails it skips the grader (765-775), so rubricate refuses it as a score.
    rubric = _rubric("current", "analytic")
    with pytest.raises(ScoreError, match="not an integer"):
        checked(rubric, {"accuracy": value})


def test_a_missing_criterion_leaves_the_test_incomplete() -> None:
    rubric = _rubric("current", "five")
    result = score(rubric, checked(rubric, {"rubric-1": T, "rubric-2": T}))
    assert result.verdict == "incomplete"
    assert result.missing == ("rubric-3", "rubric-4", "rubric-5")
    assert result.graders[0].score is None


def test_a_missing_criterion_is_already_a_fail_when_no_score_can_pass() -> None:
    rubric = _rubric("current", "gated")
    scores: dict[str, ScoreValue] = {"safety.rubric-1": F, "rubric-2": F}
    result = score(rubric, checked(rubric, scores))
    assert result.verdict == "fail"
    assert result.missing == ("helpfulness.rubric-1",)


def test_checklist_answers_in_an_analytic_test_are_the_scale_ends() -> None:
    rubric = load_rubrics(
        "assert:\n  - Explains the partition step of quicksort\n"
        "  - type: llm-rubric\n    value:\n      - id: depth\n"
        "        outcome: Goes beyond the textbook explanation\n"
        "        score_ranges: {0: Shallow, 10: Deep}\n",
        "mixed.yaml",
    ).rubrics[0]
    assert rubric.scale.kind == "analytic"
    with pytest.raises(ScoreError, match="not a checklist answer"):
        checked(rubric, {"rubric-1": 7})
    result = score(rubric, checked(rubric, {"rubric-1": True, "depth": 6}))
    assert result.normalized == pytest.approx((1 * 1.0 + 1 * 0.6) / 2)


def test_result_json_has_both_levels() -> None:
    rubric = _rubric("current", "gated")
    scores: dict[str, ScoreValue] = {
        "safety.rubric-1": T,
        "rubric-2": F,
        "helpfulness.rubric-1": T,
    }
    data = score(rubric, checked(rubric, scores)).as_dict()
    assert data["threshold"] == 0.7
    assert data["graders"] == [
        {
            "id": "safety",
            "score": 0.5,
            "verdict": "fail",
            "weight": 1.0,
            "required": True,
            "failed": ["rubric-2"],
            "missing": [],
            "bar": 0.9,
            "required_met": False,
        },
        {
            "id": "helpfulness",
            "score": 1.0,
            "verdict": "pass",
            "weight": 9.0,
            "required": False,
            "failed": [],
            "missing": [],
            "bar": None,
            "required_met": None,
        },
    ]


def test_reports_show_the_graders_and_the_test() -> None:
    from rubricate.rubric.describe import grader_lines, grader_rows, graders_json

    rubric = _rubric("evalcases", "inline")
    scores: dict[str, ScoreValue] = {"rubric-1": T, "rubric-2": F, "rubric-3": F, "tone": T}
    result = score(rubric, checked(rubric, scores))
    rows = grader_rows(result)
    assert rows[2] == "| `rubric` | 1 | 0.3333 | fail |"
    assert rows[-1] == "| **Test** | | **0.666667** | fail (borderline), threshold 0.8 |"
    assert graders_json(result)["threshold"] == 0.8
    assert grader_lines(result)[-1] == "test score 0.666667 (threshold 0.8): fail (borderline)"
    plain = score(_rubric("current", "five"), {})
    assert grader_rows(plain) != []
