"""Markdown helpers: user text made inert, code spans, cuts under a limit."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from rubricate.bot.check_run import CHECK_LIMIT
from rubricate.bot.markdown import block, cell, code, escape, truncate

ZWSP = "\u200b"


def mentions(text: str) -> list[str]:
    """The `@name` mentions GitHub would find (an `@` right before a login character)."""
    return re.findall(r"@[A-Za-z0-9-]", text)


@given(st.text(max_size=200))
@settings(max_examples=300, deadline=None)
def test_escaped_text_has_no_tags_mentions_or_table_breaks(text: str) -> None:
    for rendered in (escape(text), cell(text), block(text)):
        assert "<" not in rendered
        assert "@" not in rendered.replace("@\u200b", ""), "every @ is followed by U+200B"
    assert "|" not in cell(text).replace("\\|", "")
    assert "\n" not in cell(text)


def test_code_spans_survive_backticks() -> None:
    assert code("a`b") == "``a`b``"
    assert code("`x`") == "`` `x` ``"


def test_truncate_cuts_under_the_limit_with_a_note() -> None:
    text = "\n".join(f"line {n}" for n in range(20_000))
    cut = truncate(text, CHECK_LIMIT)
    assert len(cut) < CHECK_LIMIT
    assert cut.endswith("characters._")
    assert truncate("short", CHECK_LIMIT) == "short"


def test_code_spans_fence_longer_than_any_backtick_run() -> None:
    for token in ("a`b", "``x``", "`", "x```y", "@team"):
        span = code(token)
        fence = re.match(r"`+", span)
        assert fence is not None
        runs = [len(r) for r in re.findall(r"`+", token)]
        assert len(fence.group()) == max(runs, default=0) + 1
        assert span.endswith(fence.group())
    assert code("@team") == f"`@{ZWSP}team`"


@given(st.text(max_size=200))
@settings(max_examples=200, deadline=None)
def test_escaped_and_code_text_never_mentions(text: str) -> None:
    for rendered in (escape(text), code(text)):
        assert not mentions(rendered)
    assert "&#64;" not in escape(text), "an entity decodes back to @ before mentions are found"
