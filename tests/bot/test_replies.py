"""A reply echoes user text inert: no mention, no link, no markup, and under the size limit."""

from __future__ import annotations

import re

from rubricate.bot.effects import PostComment
from rubricate.bot.markdown import TRUNCATED, capped
from rubricate.bot.replies import REPLY_LIMIT

from .conftest import Harness, of_type

INJECTION = "/score x`@octo-org/admins`[click](https://evil.example)"
ZWSP = "\u200b"


def reply(effects: list[object]) -> str:
    (posted,) = of_type(effects, PostComment)  # type: ignore[arg-type]
    return str(posted.body)


def mentions(text: str) -> list[str]:
    """The `@name` mentions GitHub would find (an `@` right before a login character)."""
    return re.findall(r"@[A-Za-z0-9-]", text)


def test_a_mistake_by_someone_without_a_role_is_refused_without_echoing_tokens(
    bot: Harness,
) -> None:
    bot.open()
    text = reply(bot.say(INJECTION, actor="rando", role="none"))
    assert "`/score` needs the write role or higher; you have none" in text
    assert "`@octo-org/admins`[click](https://evil.example)" not in text
    assert "](https" not in text
    assert mentions(text) == ["@r"], "only the commenter is mentioned"


def test_an_echoed_token_stays_inside_a_code_span_and_mentions_nobody(bot: Harness) -> None:
    bot.open()
    text = reply(bot.say(INJECTION))
    shown = text.split("\n\n")[-1]
    assert shown.startswith("/score ID=N [ID=N...] [-- note]: ``x`@" + ZWSP + "octo-org/admins`")
    assert "`[click](https://evil.example)`` is not ID=N" in shown
    assert mentions(text) == ["@r"], "only the commenter is mentioned"


def test_a_reply_body_is_capped_with_a_mark() -> None:
    text = capped("y" * 70_000, REPLY_LIMIT)
    assert len(text) == REPLY_LIMIT
    assert text.endswith(TRUNCATED)
    assert capped("short", REPLY_LIMIT) == "short"
