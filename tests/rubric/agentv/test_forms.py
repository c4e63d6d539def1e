"""AgentV eval files in each form: what loads, with which ids, graders and warnings."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rubricate.errors import RubricateError, SourceError
from rubricate.rubric.loader import load_rubrics
from rubricate.rubric.validate import check_rubric
from tests.rubric.test_properties import STRUCTURES, _mutate

from .fixtures import CURRENT, EVALCASES, FILES, INCLUDING, V4, reader


def test_each_form_is_detected_and_named_by_validate() -> None:
    for text, name in [
        (CURRENT, "AgentV assert (current)"),
        (V4, "AgentV assertions (v4)"),
        (EVALCASES, "AgentV evalcases"),
    ]:
        report = check_rubric(text, "e.yaml")
        assert report.ok, report.lines()
        assert all(f"({name}, " in line for line in report.ok)


def test_current_form_graders_ids_and_thresholds() -> None:
    loaded = load_rubrics(CURRENT, "evals/current.yaml")
    by_case = {r.case: r for r in loaded.rubrics}
    assert loaded.dialect == "agentv-assert"
    assert "checks-only" not in by_case
    five = by_case["five"]
    assert five.ids == ("rubric-1", "rubric-2", "rubric-3", "rubric-4", "rubric-5")
    assert [(g.id, g.weight) for g in five.graders] == [("llm-rubric", 5.0)]
    assert all(c.required for c in five.criteria)
    assert five.pass_rule.min_total == 0.7  # default_test.threshold
    assert by_case["strict"].pass_rule.min_total == 0.9  # execution.threshold
    mixed = by_case["with-defaults"]
    assert mixed.ids == ("llm-rubric.rubric-1", "rubric-2", "llm-rubric-2.rubric-1")
    assert [g.id for g in mixed.graders] == ["llm-rubric", "llm-rubric-2"]


def test_merge_key_overrides_are_not_duplicates() -> None:
    merged = next(r for r in load_rubrics(CURRENT, "c.yaml").rubrics if r.case == "merged")
    assert [(g.id, g.weight) for g in merged.graders] == [("quality", 3.0), ("llm-rubric", 1.0)]
    assert merged.ids == ("correct", "reasoned", "rubric-1")


def test_a_repeated_key_without_a_merge_is_still_an_error() -> None:
    with pytest.raises(SourceError, match="duplicate key 'weight'"):
        load_rubrics("assert:\n  - type: llm-rubric\n    weight: 1\n    weight: 2\n", "d.yaml")


def test_checks_that_are_not_rubrics_are_listed_and_left_out() -> None:
    loaded = load_rubrics(CURRENT, "c.yaml")
    messages = [w.message for w in loaded.warnings]
    assert any(m.startswith("assertion type 'contains' is not applicable") for m in messages)
    assert "test 'checks-only' has no rubric criteria (only regex, script); it is left out" in (
        messages
    )
    assert any("configure it under `graders:`" in m for m in messages)


def test_a_file_of_checks_only_is_an_error_that_names_them() -> None:
    text = "tests:\n  - id: a\n    assert:\n      - type: contains\n        value: x\n"
    with pytest.raises(
        SourceError, match=r"no rubric criteria in this file \(its checks: contains"
    ):
        load_rubrics(text, "c.yaml")


def test_value_text_and_criteria_alias_and_operator() -> None:
    text = """\
        tests:
          - id: a
            assert:
              - type: llm-rubric
                value: The reply explains the failure and its fix
              - type: agent-rubric
                metric: guard
                criteria:
                  - id: no-claims
                    outcome: Makes no claim that the tests passed
                    operator: contradiction
        """
    (rubric,) = load_rubrics(_dedent(text), "v.yaml").rubrics
    assert rubric.ids == ("rubric-1", "no-claims")
    assert rubric.criterion("no-claims").operator == "contradiction"
    # head grader-parser.ts 2412-2416: a text value without score_ranges has no rubric items,
    # so AgentV judges it free-form, one continuous 0-1 score (llm-grader.ts 588-600)
    free = rubric.criterion("rubric-1")
    assert (free.continuous, free.required) == (True, False)
    assert rubric.criterion("no-claims").implied


def test_free_form_prompt_graders_use_the_test_criteria() -> None:
    text = """\
        tests:
          - id: a
            criteria: The fix handles the empty input case
            assert:
              - type: llm-rubric
                metric: judge
                prompt: file://prompts/judge.md
                weight: 2
        """
    (rubric,) = load_rubrics(_dedent(text), "p.yaml").rubrics
    assert rubric.ids == ("judge",)
    assert rubric.criteria[0].outcome == "The fix handles the empty input case"
    assert rubric.graders[0].weight == 2.0


def test_v4_deprecations_are_warnings() -> None:
    loaded = load_rubrics(V4, "v4.yaml")
    (rubric,) = loaded.rubrics
    assert rubric.criterion("accuracy").min_score == 1.0
    assert rubric.criterion("clarity").min_score == 0.7
    assert any("`required: 0.6` is deprecated" in w.message for w in loaded.warnings)


def test_current_form_refuses_removed_keys() -> None:
    text = """\
        tests:
          - id: a
            assert:
              - type: llm-rubric
                value:
                  - id: x
                    outcome: The answer is accurate and complete
                    required_min_score: 7
                    score_ranges: {0: Poor, 10: Good}
        """
    with pytest.raises(SourceError, match="'required_min_score' has been removed"):
        load_rubrics(_dedent(text), "r.yaml")


def test_evalcases_rules() -> None:
    loaded = load_rubrics(EVALCASES, "e.yaml")
    by_case = {r.case: r for r in loaded.rubrics}
    assert by_case["inline"].ids == ("rubric-1", "rubric-2", "rubric-3", "tone")
    assert [g.id for g in by_case["own"].graders] == ["depth"]
    assert by_case["own"].criterion("accuracy").min_score == 0.8
    assert by_case["default"].ids == ("tone",)


def test_evalcases_without_evaluators_use_the_expected_outcome() -> None:
    text = "evalcases:\n  - id: a\n    expected_outcome: Explains the error clearly to the user\n"
    (rubric,) = load_rubrics(text, "d.yaml").rubrics
    assert rubric.ids == ("rubric-1",)
    assert rubric.criteria[0].outcome == "Explains the error clearly to the user"


def test_includes_and_case_files_are_read_through_the_reader() -> None:
    asked: list[str] = []
    loaded = load_rubrics(INCLUDING, "evals/suite.yaml", reader(FILES, asked))
    included, from_file = loaded.rubrics
    assert [c.outcome for c in included.criteria][:3] == [
        "Answers the question that was asked here",
        "Keeps a polite and professional tone throughout",
        "Keeps the answer under two hundred words",
    ]
    assert [g.weight for g in included.graders] == [3.0, 1.0]
    assert from_file.case == "from-file"
    assert ".agentv/shared/brief.yaml" in asked
    assert "evals/cases/more.yaml" in asked


def test_references_without_a_reader_are_errors() -> None:
    with pytest.raises(SourceError, match="no file reader was given"):
        load_rubrics(INCLUDING, "evals/suite.yaml")


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("file://../../outside.yaml", "points outside the repository"),
        ("/etc/cases.yaml", "is an absolute path"),
        ("https://example.com/cases.yaml", "is a URL"),
        ("cases/*.yaml", "is a glob pattern"),
    ],
)
def test_references_outside_the_repository_are_refused_unread(ref: str, message: str) -> None:
    asked: list[str] = []
    text = f"tests: {ref}\n"
    with pytest.raises(SourceError, match=message):
        load_rubrics(text, "evals/suite.yaml", reader(FILES, asked))
    assert asked == []


def test_include_cycles_and_depth_are_errors() -> None:
    files = {
        ".agentv/templates/a.yaml": "assert:\n  - include: b\n",
        ".agentv/templates/b.yaml": "assert:\n  - include: a\n",
    }
    text = "assert:\n  - Says what the change does\n  - include: a\n"
    with pytest.raises(SourceError, match=r"include cycle|include depth exceeds 3"):
        load_rubrics(text, "e.yaml", reader(files))


def test_jsonl_case_files() -> None:
    files = {"cases.jsonl": '{"id": "a", "assert": ["Says what the change does here"]}\n'}
    (rubric,) = load_rubrics("tests: cases.jsonl\n", "e.yaml", reader(files)).rubrics
    assert (rubric.case, rubric.ids) == ("a", ("rubric-1",))


def test_local_reader_refuses_paths_outside_its_root(tmp_path: Path) -> None:
    from rubricate.rubric_sources import local_reader

    root = tmp_path / "repo"
    (root / "evals").mkdir(parents=True)
    (tmp_path / "secret.yaml").write_text("- id: x\n", encoding="utf-8")
    (root / "evals" / "link.yaml").symlink_to(tmp_path / "secret.yaml")
    read = local_reader(root)
    with pytest.raises(PermissionError):
        read("../secret.yaml")
    with pytest.raises(PermissionError):
        read("evals/link.yaml")


def _dedent(text: str) -> str:
    import textwrap

    return textwrap.dedent(text)


SEEDS = [CURRENT, V4, EVALCASES, INCLUDING]


def _load_any(text: str) -> None:
    with contextlib.suppress(RubricateError):
        load_rubrics(text, "evals/suite.yaml", reader(FILES))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SEEDS), st.data())
def test_mutated_agentv_files_raise_only_rubricate_errors(text: str, data: st.DataObject) -> None:
    mutated: Any = _mutate(yaml.safe_load(text), data)
    _load_any(yaml.safe_dump(mutated, allow_unicode=True))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["tests", "assert", "default_test", "assertions", "evalcases", "execution"]),
    STRUCTURES,
)
def test_arbitrary_agentv_bodies_raise_only_rubricate_errors(key: str, body: Any) -> None:
    _load_any(yaml.safe_dump({key: body}, allow_unicode=True))
