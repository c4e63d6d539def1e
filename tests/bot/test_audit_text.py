"""Audit regressions: what user text makes the bot write or do (findings 4, 5, 9, lazy quotes)."""

from __future__ import annotations

import re
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from rubricate.bot.commands import (
    CommandMistake,
    ParsedCommand,
    parse_commands,
    readable_words,
    visible_length,
)
from rubricate.bot.effects import AppendEvents, MarkAnswered, PostComment, React
from rubricate.bot.events import CommentEvent, HandlerContext, PullRequestEvent
from rubricate.bot.handlers import handle
from rubricate.bot.markdown import code, escape
from rubricate.bot.payload import parse_event
from rubricate.bot.visible import reverted_pr, visible_lines

from .conftest import MAINTAINER, NOW, REPO, Harness, comment_payload, kinds, of_type, pr_payload

INJECTION = "/score x`@octo-org/admins`[click](https://evil.example)"
LOW = "/approve " + " ".join(f"{k}=2" for k in ("spec", "comp", "qual", "verif", "format"))
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


def test_an_override_reason_of_invisible_characters_is_too_short(bot: Harness) -> None:
    bot.open()
    bot.say(LOW, comment_id=80)
    blanks = ("\ufe0f", "\u2800", "\u3164", "\u115f", "\uffa0", "\u0301", "<b></b>")
    attacks = [ZWSP * 20, "\u2060" * 25, " \u00a0" * 15, "ab" + "\u200d" * 30]
    attacks += [blank * 20 for blank in blanks]
    attacks += ["\u3164 " * 20, "aaaaaaaaaaaaaaaaaaaaaaaaa", "!!!! .... ---- ???? ====== ++++"]
    for reason in attacks:
        effects = bot.say(
            "/override " + reason,
            actor=MAINTAINER,
            role="maintain",
            comment_id=81,
            at="2024-03-01T12:10:00Z",
        )
        assert not of_type(effects, AppendEvents)
        assert "at least 20 are needed, in 3 words or more" in reply(effects), repr(reason)


def test_visible_length_counts_only_what_shows() -> None:
    assert visible_length(ZWSP * 20) == 0
    assert visible_length("a b\tc\n" + "\u202e\u00ad") == 3
    assert visible_length("Überprüfung läuft 🙂") == 16
    assert visible_length("<b></b>" * 20 + "\u3164\u2800\ufe0f") == 0
    assert readable_words("the <i>fix</i> ships 1") == 3


def test_a_long_enough_visible_reason_still_overrides(bot: Harness) -> None:
    bot.open()
    bot.say(LOW, comment_id=80)
    effects = bot.say(
        "/override " + ZWSP.join("accepted for now, see issue #12"),
        actor=MAINTAINER,
        role="maintain",
        comment_id=81,
        at="2024-03-01T12:10:00Z",
    )
    assert kinds(effects) == ["approved"]


def test_a_command_continuing_a_quote_lazily_is_quoted() -> None:
    assert parse_commands("> quoted text\n/approve") == []
    assert parse_commands("> a\n> b\nstill quoted\n/approve") == []
    assert [c.name for c in parse_commands("> quoted\n\n/approve")] == ["approve"]
    assert [c.name for c in parse_commands(">\n/approve")] == ["approve"]
    assert [c.name for c in parse_commands("> q\n```\n/score a=1\n```\n/approve")] == ["approve"]


def test_visible_lines_drop_fences_comments_and_quotes() -> None:
    body = "a\n```\n/x\n````\n<!-- b\n/y -->c\n> d\ne\n\n~~~~\n/z\n~~~\nf\n~~~~\ng"
    assert visible_lines(body) == [(1, "a"), (5, ""), (6, "c"), (9, ""), (15, "g")]
    assert [t for _, t in visible_lines("> d\ne", drop_quotes=False)] == ["> d", "e"]
    assert [t for _, t in visible_lines("```\nnever closed\n/approve")] == []


def revert(body: str, title: str = 'Revert "Add widget report"', number: int = 9) -> int | None:
    payload = pr_payload("closed", "c" * 40, merged=True, body=body, number=number, title=title)
    event = parse_event("pull_request", payload)
    assert isinstance(event, PullRequestEvent)
    return reverted_pr(event)


def test_a_revert_needs_githubs_title_and_a_visible_reverts_line() -> None:
    assert revert("Reverts acme/widgets#3") == 3
    assert revert("Reverts #3\n\nBroke the build.") == 3
    assert revert("Reverts #3", title="Add docs") is None
    assert revert("Adds docs.\n<!--\nReverts #3\n-->") is None
    assert revert("```\nReverts #3\n```") is None
    assert revert("`Reverts #3`") is None
    assert revert("> Reverts #3") is None
    assert revert("Reverts other/repo#3") is None
    assert revert("Reverts #9") is None, "a PR cannot revert itself"


def test_a_hidden_reverts_line_records_no_dispute(agora: object) -> None:
    earlier = Harness(agora)  # type: ignore[arg-type]
    earlier.open()
    earlier.close(merged=True)
    other = Harness(agora, pr=9)  # type: ignore[arg-type]
    effects = other.close(
        merged=True,
        body="Adds docs.\n<!--\nReverts #7\n-->",
        head="d" * 40,
        reverted_job=earlier.job,
    )
    assert kinds(effects) == ["final_approval"]


def test_mistakes_keep_their_reasons_for_people_allowed_to_run_them() -> None:
    (item,) = parse_commands("/rate 7")
    assert isinstance(item, CommandMistake)
    assert "`7`" in item.message
    (ok,) = parse_commands("/rate 4 fine")
    assert isinstance(ok, ParsedCommand)
    assert replace(ok, raw="") == ParsedCommand("rate", 0, 1, "", (), "fine", 4)


def test_a_comment_answered_without_events_is_marked_and_then_skipped(bot: Harness) -> None:
    bot.open()
    first = bot.say("/rubric\n/override short", comment_id=50)
    assert first[-2] == MarkAnswered("comment:50")
    assert of_type(first, PostComment)
    job = replace(bot.job, answered=frozenset({"comment:50"}))
    event = parse_event("issue_comment", comment_payload("/rubric", comment_id=50))
    assert isinstance(event, CommentEvent)
    rerun = handle(event, None, job, HandlerContext(REPO, bot.config, bot.rubric, NOW))
    assert not of_type(rerun, PostComment)
    assert not of_type(rerun, React)
    assert not of_type(rerun, MarkAnswered)


def test_a_comment_with_events_is_not_marked_answered(bot: Harness) -> None:
    bot.open()
    effects = bot.say("/score quality=4\n/rubric", comment_id=51)
    assert kinds(effects) == ["review_scored", "first_submission"]
    assert not of_type(effects, MarkAnswered)
