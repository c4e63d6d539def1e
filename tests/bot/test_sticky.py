"""Views: escaping, size limits, purity of the views and of the bot package."""

from __future__ import annotations

from rubricate.bot.check_run import check_run
from rubricate.bot.effects import UpsertComment
from rubricate.bot.jobstate import job_state
from rubricate.bot.sticky import COMMENT_LIMIT, STICKY_MARKER, sticky_body

from .conftest import AGORA_AUTO, REPO, Harness, of_type

FORBIDDEN = {"github", "openai", "subprocess", "socket", "urllib", "http", "httpx", "requests"}


def test_sticky_comment_stays_under_the_comment_limit(bot: Harness) -> None:
    bot.open(scores=AGORA_AUTO)
    for n in range(120):
        bot.say("/revise " + "x" * 990, comment_id=5000 + n)
    body = of_type(bot.effects, UpsertComment)[0].body
    assert len(body) < COMMENT_LIMIT
    assert body.startswith(STICKY_MARKER)
    assert "truncated" in body


def test_views_are_pure_functions_of_the_ledger(bot: Harness) -> None:
    bot.open(scores=AGORA_AUTO)
    bot.say("/score spec=4 quality=3")
    bot.push("c" * 40, "2" * 40, at="2024-03-02T10:00:00Z")
    rebuilt = job_state(list(reversed(bot.ledger)), REPO, 7)
    assert sticky_body(rebuilt, bot.rubric) == of_type(bot.effects, UpsertComment)[0].body
    again = check_run(rebuilt, bot.rubric, "c" * 40, None)
    assert again == check_run(bot.job, bot.rubric, "c" * 40, None)
