"""A free-form AgentV grader is one continuous 0-1 criterion for the judge, not yes/no."""

from __future__ import annotations

from rubricate.judge.prompt_text import CONTINUOUS_LEVELS, system_message
from rubricate.judge.reply import parse_reply
from rubricate.judge.reply_schema import response_schema
from rubricate.judge.score_choices import allowed_scores
from rubricate.rubric.loader import load_rubrics
from rubricate.rubric.model import Rubric

from .helpers import reply_text

FILE = """\
assertions:
  - type: llm-grader
    name: judge
    prompt: Does the reply explain the failure and its fix?
  - Makes no claim that the tests passed
"""


def _rubric() -> Rubric:
    (rubric,) = load_rubrics(FILE, "f.yaml").rubrics
    return rubric


def test_a_continuous_criterion_is_offered_in_tenths_and_a_checklist_item_yes_or_no() -> None:
    rubric = _rubric()
    free, item = rubric.criteria
    assert allowed_scores(rubric, free) == tuple(n / 10 for n in range(11))
    assert allowed_scores(rubric, item) == (0.0, 1.0)
    schema = response_schema(rubric, rubric.ids)["properties"]
    assert schema[free.id]["properties"]["score"] == {
        "type": "number",
        "enum": [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1],
    }
    assert schema[item.id]["properties"]["score"]["enum"] == [0, 1]
    text = system_message(rubric, rubric.ids, "m", "submission")
    assert text.count(CONTINUOUS_LEVELS) == 1


def test_a_continuous_reply_keeps_its_number() -> None:
    rubric = _rubric()
    free, item = rubric.ids
    judgment = parse_reply(reply_text({free: 0.7, item: 1}), rubric, rubric.ids)
    assert [j.score for j in judgment.criteria] == [0.7, True]
