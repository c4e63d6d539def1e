"""The check run: under GitHub's limit, and the report's own rendering when there is one."""

from __future__ import annotations

from rubricate.bot.check_run import CHECK_LIMIT, check_summary
from rubricate.bot.effects import SetCheckRun

from .conftest import AGORA_AUTO, Harness, of_type


def test_check_summary_stays_under_the_check_limit(bot: Harness) -> None:
    bot.open(scores=AGORA_AUTO)
    first = bot.rubric.criteria[0]
    many = tuple(
        first.model_copy(update={"id": f"c{n}", "name": "long name " * 30}) for n in range(400)
    )
    huge = bot.rubric.model_copy(update={"criteria": (*bot.rubric.criteria, *many)})
    summary = check_summary(bot.job, huge, None)
    assert len(summary) < CHECK_LIMIT
    assert "truncated" in summary


def test_check_run_uses_the_report_renderer_when_a_report_is_given(bot: Harness) -> None:
    effects = bot.open(scores=AGORA_AUTO)
    check = of_type(effects, SetCheckRun)[0]
    assert "rubricate: **incomplete**" in check.summary
    assert "informational" in check.summary
    assert check.text == ""
