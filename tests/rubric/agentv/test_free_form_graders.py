"""AgentV's free-form graders, g-eval, composite and unsupported checks, as AgentV reads them."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from rubricate.errors import ScoreError, SourceError
from rubricate.rubric.agentv.score import AgentVScoreResult
from rubricate.rubric.loader import load_rubrics
from rubricate.rubric.model import Rubric
from rubricate.rubric.score_args import parse_scores
from rubricate.rubric.scoring import score
from tests.rubric.test_cli import Capture, run

HEAD = """\
tests:
  - id: a
    assert:
      - type: llm-rubric
        value: The reply explains the failure and its fix
      - Names the failing test
"""


def _one(text: str) -> Rubric:
    (rubric,) = load_rubrics(textwrap.dedent(text), "f.yaml").rubrics
    return rubric


def _score(rubric: Rubric, *items: str) -> AgentVScoreResult:
    result = score(rubric, parse_scores(rubric, items))
    assert isinstance(result, AgentVScoreResult)
    return result


def test_a_text_llm_rubric_is_scored_with_one_continuous_judge_score() -> None:
    rubric = _one(HEAD)
    assert rubric.ids == ("llm-rubric.rubric-1", "llm-rubric-2.rubric-1")
    low = _score(rubric, "llm-rubric.rubric-1=0.7", "llm-rubric-2.rubric-1=true")
    assert [g.score for g in low.graders] == [0.7, 1.0]
    assert [g.verdict for g in low.graders] == ["fail", "pass"]
    assert low.normalized == pytest.approx(0.85)
    assert low.verdict == "pass"
    high = _score(rubric, "llm-rubric.rubric-1=0.85", "llm-rubric-2.rubric-1=true")
    assert high.graders[0].verdict == "pass"
    with pytest.raises(ScoreError, match="out of range; expected a number from 0 to 1"):
        parse_scores(rubric, ["llm-rubric.rubric-1=1.5"])
    with pytest.raises(ScoreError, match="not a checklist answer"):
        parse_scores(rubric, ["llm-rubric-2.rubric-1=0.7"])


def test_the_cli_accepts_a_continuous_score(tmp_path: Path, capsys: Capture) -> None:
    path = tmp_path / "f.yaml"
    path.write_text(HEAD)
    code, out, err = run(capsys, "rubric", "score", str(path), "llm-rubric.rubric-1=0.7")
    assert (code, err) == (0, "")
    assert "llm-rubric.rubric-1    0.7    no" in out
    assert "free-form judge score (0-1)" in run(capsys, "rubric", "show", str(path))[1]


def test_a_v4_llm_grader_without_rubrics_and_a_feb_default_judge_are_continuous() -> None:
    v4 = _one(
        """\
        assertions:
          - type: llm-grader
            name: judge
            prompt: Is the answer helpful?
        """
    )
    assert v4.criteria[0].continuous
    assert v4.graders[0].continuous
    feb = _one(
        """\
        evalcases:
          - id: one
            expected_outcome: The assistant explains the error clearly
        """
    )
    (criterion,) = feb.criteria
    assert (criterion.continuous, criterion.required) == (True, False)
    assert _score(feb, f"{criterion.id}=0.9").verdict == "pass"


def test_v4_g_eval_is_a_rubric_grader() -> None:
    rubric = _one(
        """\
        assertions:
          - type: g-eval
            name: quality
            criteria:
              - id: clear
                outcome: The answer is clear and direct
              - id: correct
                outcome: The answer is factually correct
        """
    )
    assert rubric.ids == ("clear", "correct")
    assert rubric.graders[0].type == "g-eval"


def test_a_composite_weighs_its_rubric_members_by_their_share() -> None:
    rubric = _one(
        """\
        assertions:
          - type: composite
            name: release
            weight: 3
            assertions:
              - {type: llm-grader, name: safety, prompt: Is it safe?}
              - {type: llm-grader, name: quality, prompt: Is it good?}
            aggregator:
              type: weighted_average
              weights: {safety: 2, quality: 1}
          - The answer names the version
        """
    )
    assert [(g.id, g.weight) for g in rubric.graders] == [
        ("safety", 2.0),
        ("quality", 1.0),
        ("rubrics", 1.0),
    ]
    result = _score(rubric, "safety=1", "quality=0.4", "rubric-1=true")
    # AgentV: composite = (2*1 + 1*0.4) / 3 = 0.8; test = (3*0.8 + 1*1) / 4 = 0.85
    assert result.normalized == pytest.approx(0.85)


@pytest.mark.parametrize("form", ["assert", "assertions"])
def test_an_unsupported_check_is_refused_as_agentv_refuses_it(form: str) -> None:
    text = f"{form}:\n  - type: word-count\n    value: 100\n  - Names the failing test\n"
    with pytest.raises(SourceError, match="unsupported assertion type 'word-count'"):
        load_rubrics(text, "w.yaml")


REQUIRED = """\
assertions:
  - type: rubrics
    criteria:
      - {id: core, outcome: Explains the core idea, required: true, weight: 1}
      - {id: partition, outcome: Describes the partition step, weight: 2}
      - {id: recursion, outcome: Shows the recursion, weight: 2}
      - {id: complexity, outcome: States the complexity, weight: 1.5}
      - {id: worst, outcome: Names the worst case, weight: 1}
"""


def test_a_failed_required_criterion_fails_the_verdict(tmp_path: Path, capsys: Capture) -> None:
    path = tmp_path / "r.yaml"
    path.write_text(REQUIRED)
    items = ["core=false", "partition=1", "recursion=1", "complexity=1", "worst=1"]
    code, out, _ = run(capsys, "rubric", "score", str(path), *items, "--json")
    data = json.loads(out)
    assert (code, data["verdict"], data["agentv_verdict"]) == (0, "fail", "pass")
    assert data["normalized"] == pytest.approx(0.8667, abs=5e-5)
    assert data["required_failed"] == ["core"]
    text = run(capsys, "rubric", "score", str(path), *items)[1]
    assert "required criterion failed: core (AgentV alone: pass)" in text
    assert "core        false  no" in text


def test_a_required_grader_says_whether_it_met_its_bar(capsys: Capture) -> None:
    out = run(capsys, "rubric", "score", "code-review", "correctness=7")[1]
    assert "correctness       4  0.7     fail  (required ≥ 0.7: met)" in out
    out = run(capsys, "rubric", "score", "code-review", "correctness=5")[1]
    assert "correctness  5      no" in out
    assert "(required ≥ 0.7: not met)" in out
    assert "passed yes" not in out


def test_a_v4_llm_rubric_without_a_value_is_judged_on_the_test_criteria() -> None:
    rubric = _one(
        """\
        tests:
          - id: special
            criteria: Handles the edge case
            assertions:
              - {name: custom_eval, type: llm-rubric}
        """
    )
    (criterion,) = rubric.criteria
    assert (criterion.id, criterion.outcome, criterion.continuous) == (
        "custom_eval",
        "Handles the edge case",
        True,
    )
