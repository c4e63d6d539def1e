"""The gate status: one per version, its description within GitHub's 140 characters."""

from __future__ import annotations

from rubricate.bot.effects import SetStatus
from rubricate.bot.gate import STATUS_LIMIT, gate_output, status_text

from .conftest import Harness, of_type


def test_status_description_is_at_most_140_characters(bot: Harness) -> None:
    bot.open()
    bot.say("/approve spec=1 completeness=1 quality=1 verif=1 format=1")
    for effect in of_type(bot.effects, SetStatus):
        assert len(effect.description) <= 140


def test_a_status_text_is_cut_to_the_limit_with_a_mark() -> None:
    assert status_text("x" * STATUS_LIMIT) == "x" * STATUS_LIMIT
    cut = status_text("x" * (STATUS_LIMIT + 1))
    assert (len(cut), cut[-1]) == (STATUS_LIMIT, "…")


def test_the_gate_output_follows_the_job_to_its_end(bot: Harness) -> None:
    assert gate_output(bot.job, bot.rubric) == "pending"
    bot.open()
    bot.say("/approve spec=5 completeness=5 quality=5 verif=5 format=5")
    assert gate_output(bot.job, bot.rubric) == "success"
    bot.close(merged=False)
    assert gate_output(bot.job, bot.rubric) == "abandoned"
