"""Each dialect loads into the one model: the seed examples, written as proper YAML."""

from __future__ import annotations

import hashlib

import pytest

from rubricate.rubric.model import Anchor, ScoreRange

from .helpers import DATA, SHARED, load, load_data


def test_native_file_with_its_own_scale_and_pass_rule() -> None:
    loaded = load_data("native-minimal.yml")
    (rubric,) = loaded.rubrics
    assert loaded.dialect == "native"
    assert (rubric.id, rubric.version, rubric.case) == ("docs", "2", None)
    assert (rubric.scale.min, rubric.scale.max, rubric.scale.kind) == (0, 4, "points")
    assert (rubric.pass_rule.min_total, rubric.pass_rule.min_each) == (2.5, None)
    accuracy, clarity = rubric.criteria
    assert accuracy.anchors == (
        Anchor(score=0, what="Wrong throughout"),
        Anchor(score=4, what="Accurate everywhere"),
    )
    assert clarity.outcome == "A newcomer can follow the document without help"
    assert clarity.required
    assert clarity.weight == 0.25


def test_native_defaults_to_agoras_scale_and_pass_rule() -> None:
    loaded = load(
        """\
        criteria:
          - id: everything
            outcome: The whole job is done as it was asked
        """,
        source="dir/my-rubric.yml",
    )
    (rubric,) = loaded.rubrics
    assert rubric.id == "my-rubric"
    assert (rubric.scale.min, rubric.scale.max) == (1, 5)
    assert (rubric.pass_rule.min_total, rubric.pass_rule.min_each) == (3.5, 2)


def test_version_defaults_to_a_hash_of_the_text() -> None:
    text = "rubrics:\n  - Contains the correct answer to the question\n"
    rubric = load(text).rubrics[0]
    assert rubric.version == "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:12]
    changed = load(text.replace("correct", "right")).rubrics[0]
    assert changed.version != rubric.version


def test_id_falls_back_to_name() -> None:
    rubric = load_data("evaluator-code-review.yml").rubrics[0]
    assert rubric.id == "code-review-eval#sql-injection"
    assert rubric.version == "1.0"


def test_float_version_warns() -> None:
    loaded = load("version: 1.10\nrubrics:\n  - Contains the correct answer to it\n")
    assert loaded.rubrics[0].version == "1.1"
    assert any("quote it" in w.message for w in loaded.warnings)


def test_agentv_plain_strings_are_required_criteria() -> None:
    loaded = load_data("agentv-plain.yml")
    (rubric,) = loaded.rubrics
    assert loaded.dialect == "agentv-assertions"
    assert rubric.case == "quicksort-explain"
    assert rubric.ids == ("rubric-1", "rubric-2", "rubric-3")
    assert all(c.required and c.weight == 1.0 for c in rubric.criteria)
    assert rubric.criteria[1].outcome == "Explains partition step"
    assert (rubric.scale.min, rubric.scale.max, rubric.scale.kind) == (0, 1, "checklist")
    assert rubric.pass_rule.min_total == 0.8
    assert rubric.pass_rule.min_each is None


def test_agentv_typed_rubrics_strings_match_the_plain_form() -> None:
    plain = load_data("agentv-plain.yml").rubrics[0]
    typed = load_data("agentv-typed-strings.yml").rubrics[0]
    assert typed.criteria == plain.criteria


def test_agentv_criterion_objects() -> None:
    (rubric,) = load_data("agentv-objects.yml").rubrics
    assert rubric.case is None
    # AgentV makes a checklist criterion required unless it says `required: false`
    # (loaders/grader-parser.ts 2565 at 58f316c; v4.42.4 same file 2232).
    assert [(c.id, c.weight, c.required) for c in rubric.criteria] == [
        ("core-concept", 2.0, True),
        ("partition", 1.5, True),
        ("complexity", 1.0, True),
    ]


def test_agentv_score_ranges_make_the_rubric_analytic() -> None:
    (rubric,) = load_data("agentv-analytic.yml").rubrics
    assert (rubric.scale.min, rubric.scale.max, rubric.scale.kind) == (0, 10, "analytic")
    assert rubric.pass_rule.min_total == 8.0
    assert rubric.criteria[0].score_ranges == (
        ScoreRange(low=0, high=2, text="Completely wrong"),
        ScoreRange(low=3, high=4, text="Partially correct with major errors"),
        ScoreRange(low=5, high=6, text="Mostly correct with minor issues"),
        ScoreRange(low=7, high=9, text="Correct with minor omissions"),
        ScoreRange(low=10, high=10, text="Perfectly accurate and complete"),
    )


@pytest.mark.parametrize(
    "ranges",
    [
        "{0: Low, 5: Mid, 10: Top}",
        "{'0-4': Low, '5-9': Mid, '10': Top}",
        "[{score_range: [0, 4], outcome: Low}, {score_range: [5, 9], outcome: Mid},"
        " {score_range: [10, 10], outcome: Top}]",
    ],
)
def test_three_score_range_forms_agree(ranges: str) -> None:
    text = (
        "assertions:\n  - type: rubrics\n    criteria:\n      - id: accuracy\n"
        "        outcome: Provides the correct answer with reasoning\n"
        f"        score_ranges: {ranges}\n"
    )
    (rubric,) = load(text).rubrics
    assert rubric.criteria[0].score_ranges == (
        ScoreRange(low=0, high=4, text="Low"),
        ScoreRange(low=5, high=9, text="Mid"),
        ScoreRange(low=10, high=10, text="Top"),
    )


def test_agentv_cases_and_other_graders() -> None:
    loaded = load_data("agentv-graders.yml")
    assert loaded.cases == ("code-quality", "tool-use")
    quality, tools = loaded.rubrics
    assert quality.id == "agentv-graders#code-quality"
    assert quality.ids == ("rubric-1", "rubric-2", "rubric-3")
    assert tools.ids == ("rubric-1", "rubric-2")
    ignored = [w for w in loaded.warnings if "code-grader" in w.message]
    assert [(w.line, w.severity) for w in ignored] == [(12, "warning")]


def test_evaluator_dialect_with_expected_outcome_alias() -> None:
    loaded = load_data("evaluator-code-review.yml")
    (rubric,) = loaded.rubrics
    assert loaded.dialect == "agentv-evaluator"
    assert rubric.ids == ("bug-detection", "fix-suggestion", "explanation", "security-awareness")
    assert rubric.criteria[0].outcome == "Correctly identifies bugs in the code"
    assert rubric.criteria[0].required
    assert rubric.scale.kind == "analytic"
    assert rubric.criteria[0].score_ranges[0] == ScoreRange(
        low=0, high=4, text=rubric.criteria[0].score_ranges[0].text
    )


def test_inline_rubric_plain_strings_are_required() -> None:
    # v2.5.8 loaders/evaluator-parser.ts 1032-1050: a string is `required: true`.
    (rubric,) = load_data("evaluator-strings.yml").rubrics
    assert rubric.ids == ("rubric-1", "rubric-2", "rubric-3")
    assert all(c.required for c in rubric.criteria)
    assert rubric.scale.kind == "checklist"


def test_evaluator_required_weights() -> None:
    (rubric,) = load_data("evaluator-safety.yml").rubrics
    assert [(c.id, c.weight, c.required) for c in rubric.criteria] == [
        ("no-harm", 10.0, True),
        ("no-pii", 10.0, True),
        ("appropriate", 5.0, True),
        ("honest", 3.0, True),
    ]


def test_evaluator_inline_case_rubrics() -> None:
    (rubric,) = load_data("evaluator-inline.yml").rubrics
    assert rubric.case == "greeting"
    assert [c.outcome for c in rubric.criteria] == ["Includes greeting word", "Friendly tone"]


def test_inline_rubrics_come_first_and_number_their_own_list() -> None:
    # v2.5.8 yaml-parser.ts 224-231: inline rubrics are prepended as their own grader.
    loaded = load_data("evaluator-combined.yml")
    specific, plain = loaded.rubrics
    assert specific.ids == ("rubric-1", "rubric-2", "tone")
    assert [g.id for g in specific.graders] == ["rubric", "shared_rubric"]
    assert specific.criteria[0].outcome == "Must mention product name"
    assert plain.ids == ("tone",)
    assert plain.case == "case-1"


def test_evaluators_without_execution_and_other_types() -> None:
    loaded = load(
        """\
        evaluators:
          - name: exact
            type: equals
          - name: quality
            type: rubric
            rubrics:
              - id: correct
                expected_outcome: Contains the correct answer to the question
        """
    )
    assert loaded.rubrics[0].ids == ("correct",)
    assert any("type 'equals' is not applicable" in w.message for w in loaded.warnings)


def test_axes_seed_file() -> None:
    loaded = load_data("axes-v1.yml")
    (rubric,) = loaded.rubrics
    assert loaded.dialect == "axes"
    assert rubric.version == "v1"
    assert rubric.ids[:2] == ("task_complexity", "goal_completion")
    assert (rubric.scale.min, rubric.scale.max, rubric.scale.open) == (0, 100, True)
    assert rubric.pass_rule.min_total == 50
    nullable = [c.id for c in rubric.criteria if c.nullable]
    assert nullable == ["subagent_orchestration", "self_extension"]
    first = rubric.criteria[0].anchors[0]
    assert (first.score, first.label) == (10, "trivial")
    assert first.what == "Single fact, single tool, no planning, instant answer."


def test_axes_request_criteria_and_pass_override() -> None:
    loaded = load(
        """\
        pass: {min_each: 20}
        axes:
          task_complexity:
            judged_from: request
            description: Difficulty of what the user asked for
          goal_completion:
            weight: 3
            description: Did the user end up with what they wanted
            anchors: {150: Beyond what was thought possible}
        """
    )
    (rubric,) = loaded.rubrics
    assert rubric.request_criteria == ("task_complexity",)
    assert (rubric.pass_rule.min_total, rubric.pass_rule.min_each) == (50, 20)
    assert rubric.criteria[1].anchors[0].score == 150


def test_style_warnings() -> None:
    loaded = load(
        """\
        rubrics:
          - id: check1
            expected_outcome: Finds the bug
          - id: r2
            expected_outcome: Identifies the off-by-one error in the loop bound
        """
    )
    messages = [(w.line, w.message) for w in loaded.warnings]
    assert messages == [
        (2, "criterion id 'check1' does not say what it checks; use a descriptive id"),
        (3, "outcome 'Finds the bug' is under 4 words; say what is checked"),
        (4, "criterion id 'r2' does not say what it checks; use a descriptive id"),
    ]
    assert str(loaded.warnings[0]).startswith("r.yml:2:9: warning: ")


def test_the_seed_axes_file_when_present() -> None:
    seed = SHARED / "seeds" / "004_f0cc22bf8708dc7a.txt"
    if not seed.is_file():
        pytest.skip("../shared/seeds is not available")
    text = seed.read_text(encoding="utf-8")
    assert "task_complexity" in text
    ours = (DATA / "axes-v1.yml").read_text(encoding="utf-8")
    for line in text.splitlines():
        assert line.strip() in ours
