"""Property tests: loading and scoring raise nothing but rubricate's own typed errors."""

from __future__ import annotations

import contextlib
import math
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rubricate.cli.rubric_cmd import builtin_names, resolve_rubric
from rubricate.errors import RubricateError, ScoreError
from rubricate.rubric.loader import load_rubrics
from rubricate.rubric.model import Rubric, ScoreValue
from rubricate.rubric.scoring import score

from .helpers import DATA, checked

KEYS = [
    "id", "name", "version", "description", "scale", "pass", "criteria", "axes", "assertions",
    "tests", "rubrics", "evaluators", "evalcases", "execution", "type", "outcome", "assert",
    "default_test", "value", "llm-rubric", "agent-rubric", "metric", "include", "threshold",
    "skip_defaults", "negate", "operator", "required_min_score", "criteria",
    "expected_outcome", "weight", "required", "min_score", "score_ranges", "anchors", "nullable",
    "judged_from", "score", "label", "what", "examples", "score_range", "min", "max", "min_total",
    "min_each", "rubric", "request", "0-4", "5-10",
]  # fmt: skip
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from(KEYS)
)
KEY = st.sampled_from(KEYS) | st.integers(-3, 12) | st.text(max_size=6)
STRUCTURES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEY, inner, max_size=5),
    max_leaves=25,
)
SEEDS = sorted(p.read_text(encoding="utf-8") for p in DATA.glob("*.yml"))


def _load(text: str) -> None:
    with contextlib.suppress(RubricateError):
        load_rubrics(text, "prop.yml")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200))
def test_arbitrary_text_loads_or_raises_a_rubricate_error(text: str) -> None:
    _load(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(STRUCTURES)
def test_arbitrary_structures_load_or_raise_a_rubricate_error(data: Any) -> None:
    _load(yaml.safe_dump(data, allow_unicode=True))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(
        [
            "criteria",
            "axes",
            "assertions",
            "rubrics",
            "tests",
            "evalcases",
            "assert",
            "default_test",
        ]
    ),
    STRUCTURES,
)
def test_arbitrary_dialect_bodies_load_or_raise(marker: str, body: Any) -> None:
    _load(yaml.safe_dump({marker: body}, allow_unicode=True))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(SEEDS), st.data())
def test_mutated_seed_files_load_or_raise(text: str, data: st.DataObject) -> None:
    document = yaml.safe_load(text)
    mutated = _mutate(document, data)
    _load(yaml.safe_dump(mutated, allow_unicode=True))


def _mutate(node: Any, data: st.DataObject) -> Any:
    """Replace one random node of a document by an arbitrary structure."""
    if isinstance(node, dict) and node and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(node, key=str)))
        return {**node, key: _mutate(node[key], data)}
    if isinstance(node, list) and node and data.draw(st.booleans()):
        index = data.draw(st.integers(0, len(node) - 1))
        return [*node[:index], _mutate(node[index], data), *node[index + 1 :]]
    return data.draw(STRUCTURES)


SCORE_VALUES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**400), max_value=10**400)
    | st.floats(allow_nan=True, allow_infinity=True)
)
RUBRICS = [resolve_rubric(name) for name in builtin_names()]


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(RUBRICS),
    st.dictionaries(st.sampled_from(["spec_adherence", "quality", "goal_completion", "tests"])
                    | st.text(max_size=5), SCORE_VALUES, max_size=8),
)  # fmt: skip
def test_scoring_arbitrary_maps_raises_only_score_errors(
    rubric: Rubric, scores: dict[str, ScoreValue]
) -> None:
    try:
        valid = checked(rubric, scores)
    except ScoreError:
        return
    result = score(rubric, valid)
    assert result.verdict in ("pass", "fail", "incomplete")
    if result.normalized is not None:
        assert math.isfinite(result.normalized)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(RUBRICS), st.data())
def test_checked_full_scores_never_leave_the_verdicts(rubric: Rubric, data: st.DataObject) -> None:
    scores: dict[str, ScoreValue] = {}
    for criterion in rubric.criteria:
        top = rubric.scale.max * (1.5 if rubric.scale.open else 1)
        if rubric.graders:  # AgentV takes whole 0-10 replies and true/false checklist answers
            scores[criterion.id] = data.draw(
                st.integers(0, 10) if rubric.scale.max > 1 else st.booleans()
            )
            continue
        scores[criterion.id] = data.draw(st.floats(rubric.scale.min, top))
    result = score(rubric, checked(rubric, scores))
    assert result.verdict in ("pass", "fail")
    assert result.missing == ()


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(RUBRICS), st.dictionaries(st.text(max_size=8), SCORE_VALUES, max_size=6))
def test_unchecked_scores_raise_only_score_errors(
    rubric: Rubric, scores: dict[str, ScoreValue]
) -> None:
    with contextlib.suppress(ScoreError):
        score(rubric, scores)
