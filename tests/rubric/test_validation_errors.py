"""Every validation error of the issue's table, located at the line of its YAML node."""

from __future__ import annotations

import pytest

from rubricate.errors import SourceError

from .helpers import errors_of, load, only_error

NATIVE_HEAD = """\
id: demo
version: "1"
criteria:
"""


def native(body: str) -> str:
    """A native rubric with the given criteria block (already indented by two)."""
    return NATIVE_HEAD + body


def test_duplicate_ids_name_the_first_line() -> None:
    text = """\
        id: demo
        version: "1"
        description: >
          Two criteria share an id.
        scale: {min: 1, max: 5}
        criteria:
          - id: quality
            outcome: Internally coherent and factually accurate work
            weight: 0.5
          - id: quality
            outcome: Free of obvious errors and contradictions
            weight: 0.5
        """
    error = only_error(text)
    assert (error.line, error.col) == (10, 9)
    assert error.message == "duplicate criterion id 'quality' (first defined at line 7)"
    assert str(error) == "r.yml:10:9: duplicate criterion id 'quality' (first defined at line 7)"


def test_duplicate_ids_ignore_case() -> None:
    text = """\
        assertions:
          - type: rubrics
            criteria:
              - {id: Tone, outcome: The reply keeps a professional tone}
              - {id: tone, outcome: The reply keeps a friendly tone throughout}
        """
    error = only_error(text)
    assert error.line == 5
    assert "duplicate criterion id 'tone' (first defined at line 4)" in error.message


@pytest.mark.parametrize(
    ("weight", "expected"),
    [
        ("0", "weight should be greater than 0, got 0"),
        ("-1.5", "weight should be greater than 0, got -1.5"),
        ("heavy", "weight should be a valid number, got 'heavy'"),
        ("true", "weight should be a valid number, got true"),
        (".nan", "weight should be a finite number, got nan"),
        ("null", "weight should be a valid number, got null"),
    ],
)
def test_weight_must_be_a_positive_number(weight: str, expected: str) -> None:
    text = f"""\
        assertions:
          - type: rubrics
            criteria:
              - id: partition
                outcome: Describes the partition step in detail
                weight: {weight}
        """
    error = only_error(text)
    assert (error.line, error.message) == (6, expected)


@pytest.mark.parametrize(
    ("min_score", "expected"),
    [
        ("0", "min_score should be greater than 0, got 0"),
        ("1.5", "min_score should be less than or equal to 1, got 1.5"),
        ("-0.2", "min_score should be greater than 0, got -0.2"),
        ("high", "min_score should be a valid number, got 'high'"),
    ],
)
def test_min_score_must_lie_in_0_1(min_score: str, expected: str) -> None:
    text = f"""\
        rubrics:
          - id: accuracy
            expected_outcome: Information is factually correct throughout
            min_score: {min_score}
        """
    error = only_error(text)
    assert (error.line, error.message) == (4, expected)


def test_min_score_of_one_is_allowed() -> None:
    loaded = load(
        """\
        rubrics:
          - id: accuracy
            expected_outcome: Information is factually correct throughout
            score_ranges: {0: Wrong, 10: Right}
            min_score: 1
        """
    )
    assert loaded.rubrics[0].criteria[0].min_score == 1.0


def test_min_score_on_a_checklist_criterion_is_ignored_as_agentv_does() -> None:
    loaded = load(
        """\
        rubrics:
          - id: accuracy
            expected_outcome: Information is factually correct throughout
            min_score: 1
        """
    )
    assert loaded.rubrics[0].criteria[0].min_score is None
    assert "AgentV ignores min_score on a checklist criterion" in loaded.warnings[0].message


RANGES_HEAD = """\
assertions:
  - type: rubrics
    criteria:
      - id: accuracy
        outcome: Provides the correct answer with reasoning
        score_ranges:
"""


@pytest.mark.parametrize(
    ("ranges", "line", "message"),
    [
        (
            "          3: Partially correct\n          10: Perfect\n",
            6,
            "score ranges must start at 0 (the lowest key is 3)",
        ),
        (
            "          '0-3': Wrong\n          '7-10': Right\n",
            6,
            "missing coverage for scores 4, 5, 6",
        ),
        (
            "          '0-5': Wrong\n          '4-10': Right\n",
            8,
            "score ranges 0-5 and 4-10 overlap (scores 4, 5)",
        ),
        (
            "          0: Wrong\n          12: Beyond\n",
            8,
            "score 12 is outside the analytic scale 0-10",
        ),
        (
            "          '0-7': Wrong\n          '8-12': Beyond\n",
            8,
            "score range 8-12 leaves the analytic scale 0-10",
        ),
        (
            "          '0-4': Wrong\n          '9-5': Reversed\n",
            8,
            "score range 9-5 is reversed",
        ),
        (
            "          0: Wrong\n          '0': Again\n",
            8,
            "score 0 is given twice",
        ),
        (
            "          0: Wrong\n          half: Middle\n",
            8,
            "score range key 'half' should be a score from 0 to 10, or a range like '4-6'",
        ),
        (
            "          - {score_range: [0, 4], outcome: Wrong}\n"
            "          - {score_range: [6, 10], outcome: Right}\n",
            6,
            "missing coverage for scores 5",
        ),
    ],
)
def test_bad_score_ranges(ranges: str, line: int, message: str) -> None:
    errors = errors_of(RANGES_HEAD + ranges)
    assert [(e.line, e.message) for e in errors] == [(line, message)]


def test_score_range_list_items_are_strict() -> None:
    errors = errors_of(RANGES_HEAD + "          - {score_range: [0, 10], outcom: All}\n")
    assert [(e.line, e.message) for e in errors] == [
        (7, "missing required key 'outcome'"),
        (7, "unknown key 'outcom' (did you mean 'outcome'?)"),
    ]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (
            native(
                "  - id: accuracy\n    outcome: The answer is correct and complete\n    wieght: 1\n"
            ),
            6,
            "unknown key 'wieght' (did you mean 'weight'?)",
        ),
        (
            "id: x\npas: {min_total: 3}\ncriteria:\n  - {id: a, outcome: One two three four}\n",
            2,
            "unknown key 'pas' (did you mean 'pass'?)",
        ),
        (
            "critera:\n  - {id: a, outcome: One two three four}\n",
            1,
            "unknown key 'critera' (did you mean 'criteria'?)",
        ),
        (
            "axes:\n  goal:\n    descripton: Did the user get what they asked for\n",
            3,
            "unknown key 'descripton' (did you mean 'description'?)",
        ),
        (
            "rubrics:\n  - id: tone\n    expected_outcom: Keeps a professional tone always\n",
            3,
            "unknown key 'expected_outcom' (did you mean 'expected_outcome'?)",
        ),
    ],
)
def test_unknown_keys_suggest_the_closest(text: str, line: int, message: str) -> None:
    errors = errors_of(text)
    assert (errors[0].line, errors[0].message) == (line, message)


def test_agentv_files_allow_test_level_keys() -> None:
    loaded = load(
        """\
        description: Quicksort explanations
        tests:
          - id: quicksort
            input: Explain quicksort algorithm
            expected_output: A clear explanation
            metadata: {owner: docs}
            assertions:
              - Mentions the divide-and-conquer approach explicitly
        """
    )
    assert loaded.rubrics[0].ids == ("rubric-1",)


def test_agora_weights_must_sum_to_one() -> None:
    text = """\
        id: agora-like
        criteria:
          - {id: spec_adherence, outcome: Output addresses what the job asked, weight: 0.3}
          - {id: completeness, outcome: All required deliverables are present, weight: 0.2}
          - {id: quality, outcome: Internally coherent and factually accurate, weight: 0.25}
          - {id: verifiability, outcome: A reviewer can confirm correctness, weight: 0.15}
          - {id: format_correctness, outcome: Output matches the requested structure, weight: 0.05}
        """
    error = only_error(text)
    assert (error.line, error.col) == (2, 1)
    assert error.message == "native criterion weights must sum to 1.00, but they sum to 0.95"


def test_non_mapping_document() -> None:
    error = only_error("- one\n- two\n")
    assert (error.line, error.col) == (1, 1)
    assert error.message == "a rubric file must be a mapping of keys to values, got a list"


@pytest.mark.parametrize("text", ["", "# only a comment\n", "---\n"])
def test_empty_document(text: str) -> None:
    assert only_error(text).message == "the rubric file is empty"


def test_yaml_syntax_error_is_located() -> None:
    text = "id: x\ncriteria:\n  - id: a\n    outcome: [unclosed\n"
    error = only_error(text)
    assert error.message.startswith("YAML syntax error")
    assert error.line == 5


def test_duplicate_yaml_keys_are_errors() -> None:
    error = only_error("rubrics:\n  - Has an answer that is correct\nrubrics:\n  - Again\n")
    assert (error.line, error.message) == (3, "duplicate key 'rubrics' (first at line 1)")


def test_request_criteria_must_come_first() -> None:
    text = """\
        axes:
          goal_completion:
            description: Did the user end up with what they wanted
          task_complexity:
            description: Difficulty of what the user asked for
            judged_from: request
        """
    error = only_error(text)
    assert error.line == 6
    assert error.message == (
        "criterion 'task_complexity' is judged from the request, so it must come before "
        "'goal_completion' (line 2), which is judged from the submission"
    )


def test_case_criteria_come_before_shared_ones_for_the_order_rule() -> None:
    # AgentV runs a test's own graders first, then the file's (grader-parser.ts 278-284).
    text = """\
        assert:
          - type: llm-rubric
            value:
              - id: difficulty
                outcome: How hard the request itself is to satisfy
                judged_from: request
        tests:
          - id: one
            assert:
              - Keeps a professional tone throughout
        """
    error = only_error(text)
    assert error.line == 6


def test_mixed_dialects_are_refused() -> None:
    error = only_error(
        "criteria:\n  - {id: a, outcome: b c d e}\naxes:\n  x: {description: a b c d}\n"
    )
    assert error.line == 3
    assert "mixes rubric dialects" in error.message


def test_no_dialect_lists_the_markers() -> None:
    error = only_error("hello: world\n")
    assert error.message.startswith("no criteria: the file has none of the rubric keys `criteria:`")


def test_native_custom_scale_needs_a_pass_rule() -> None:
    text = native("  - {id: a, outcome: The answer is correct and complete, weight: 1}\n")
    error = only_error(text.replace("criteria:", "scale: {min: 0, max: 10}\ncriteria:"))
    assert (error.line, error.message) == (
        3,
        "a native rubric with its own scale needs a `pass:` rule",
    )


def test_native_scale_must_be_increasing() -> None:
    text = native("  - {id: a, outcome: The answer is correct and complete, weight: 1}\n")
    errors = errors_of(text.replace("criteria:", "scale: {min: 5, max: 1}\npass: {}\ncriteria:"))
    assert errors[0].message == "scale.min (5) must be below scale.max (1)"


def test_pass_bars_must_lie_on_the_scale() -> None:
    text = native("  - {id: a, outcome: The answer is correct and complete, weight: 1}\n")
    error = only_error(text.replace("criteria:", "pass: {min_total: 7, min_each: 2}\ncriteria:"))
    assert (error.line, error.message) == (3, "pass.min_total 7 is outside the scale 1-5")


def test_anchor_problems() -> None:
    text = native(
        "  - id: a\n"
        "    outcome: The answer is correct and complete\n"
        "    weight: 1\n"
        "    anchors:\n"
        "      - {score: 9, label: Too high}\n"
        "      - {score: 3, label: Fine}\n"
        "      - {score: 3, what: Again}\n"
        "      - {score: 2}\n"
    )
    messages = [(e.line, e.message) for e in errors_of(text)]
    assert messages == [
        (8, "anchor score 9 is outside the scale 1-5"),
        (10, "anchor score 3 is given twice"),
        (11, "anchor 2 needs a label or a `what` text"),
    ]


def test_anchor_mapping_keys_must_be_scores() -> None:
    text = native(
        "  - id: a\n    outcome: The answer is correct and complete\n    anchors: {top: x}\n"
    )
    error = only_error(text)
    assert (error.line, error.message) == (6, "anchor key 'top' should be a score")


def test_criterion_id_must_be_a_slug() -> None:
    text = (
        "rubrics:\n  - id: two words\n    expected_outcome: Keeps a professional tone throughout\n"
    )
    error = only_error(text)
    assert error.line == 2
    assert "should be an ASCII slug" in error.message


def test_outcome_is_required_and_single() -> None:
    missing = only_error("rubrics:\n  - id: tone\n    weight: 2\n")
    assert missing.message.startswith("missing required key 'outcome'")
    both = only_error(
        "rubrics:\n  - id: tone\n    outcome: Keeps a calm tone all along\n"
        "    expected_outcome: Keeps a calm tone\n"
    )
    assert (both.line, both.message) == (4, "give either 'outcome' or 'expected_outcome', not both")


def test_duplicate_case_ids() -> None:
    text = (
        "tests:\n  - id: a\n    assertions: [Says hello to the user]\n"
        "  - id: a\n    assertions: [Says goodbye to the user]\n"
    )
    error = only_error(text)
    assert (error.line, error.message) == (4, "duplicate case id 'a' (first defined at line 2)")


def test_a_rubric_needs_criteria() -> None:
    error = only_error("tests:\n  - id: a\n    input: hello\n")
    assert (error.line, error.message) == (1, "no rubric criteria in this file (its checks: none)")


def test_wrong_shapes_are_reported_with_their_place() -> None:
    error = only_error("rubrics:\n  - 42\n")
    assert (error.line, error.message) == (2, "a criterion should be a string or a mapping, got 42")


def test_errors_are_all_reported_together_in_source_order() -> None:
    text = """\
        rubrics:
          - id: a-criterion
            expected_outcome: Keeps a professional tone throughout
            weight: -1
          - id: another
            expected_outcome: Uses appropriate and precise terminology
            min_score: 2
        """
    with pytest.raises(SourceError) as caught:
        load(text)
    assert [d.line for d in caught.value.diagnostics] == [4, 7]
