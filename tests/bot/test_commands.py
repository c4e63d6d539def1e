"""The slash-command grammar: stripping, arguments, mistakes, and property tests."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rubricate.bot.command_table import COMMANDS, display_name
from rubricate.bot.commands import (
    MAX_COMMANDS,
    CommandMistake,
    ParsedCommand,
    parse_commands,
    readable_words,
    visible_length,
)
from rubricate.bot.effects import AppendEvents, PostComment
from rubricate.rubric.model import ScoreValue

from .conftest import MAINTAINER, Harness, kinds, of_type

LOW = "/approve " + " ".join(f"{k}=2" for k in ("spec", "comp", "qual", "verif", "format"))
ZWSP = "\u200b"


def reply(effects: list[object]) -> str:
    (posted,) = of_type(effects, PostComment)  # type: ignore[arg-type]
    return str(posted.body)


def format_value(value: ScoreValue) -> str:
    """A score value as a command writes it (`4`, `3.5`, `true`, `null`)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"{value:g}"


def format_command(command: ParsedCommand) -> str:
    """The canonical text of a parsed command (what `parse_commands` reads back)."""
    pairs = " ".join(f"{key}={format_value(value)}" for key, value in command.scores)
    parts = [display_name(command.name), pairs]
    if command.name == "rate":
        parts.append(str(command.rating))
    if command.text:
        parts.append(f"-- {command.text}" if command.name == "score" else command.text)
    return " ".join(part for part in parts if part)


def only(body: str) -> ParsedCommand | CommandMistake:
    found = parse_commands(body)
    assert len(found) == 1, found
    return found[0]


def test_score_with_note_and_prefixes() -> None:
    item = only("/score spec=4 Quality=3.5 fmt=true -- looks good, thanks")
    assert isinstance(item, ParsedCommand)
    assert item.name == "score"
    assert item.scores == (("spec", 4.0), ("Quality", 3.5), ("fmt", True))
    assert item.text == "looks good, thanks"


def test_names_ignore_case_and_indent_up_to_three_spaces() -> None:
    assert isinstance(only("   /APPROVE"), ParsedCommand)
    assert parse_commands("    /approve") == []


def test_commands_inside_fenced_code_quotes_and_html_comments_are_ignored() -> None:
    body = "\n".join(
        [
            "```",
            "/approve",
            "```",
            "~~~~ text",
            "/score spec=1",
            "~~~",
            "~~~~",
            "> /override because reasons that are long enough",
            "<!-- /approve -->",
            "<!--",
            "/dispute hidden",
            "-->",
            "/rubric",
        ]
    )
    found = parse_commands(body)
    assert [(c.name, c.line) for c in found] == [("rubric", 13)]


def test_unclosed_fence_hides_the_rest() -> None:
    assert parse_commands("```python\n/approve\n/score spec=1") == []


def test_command_right_after_an_html_comment_counts() -> None:
    assert only("<!-- note -->/rubric").name == "rubric"


def test_prose_lines_and_paths_are_not_commands() -> None:
    body = "thanks! /score spec=4 later\n/usr/bin/env is fine\nsee /approve below"
    assert parse_commands(body) == []


def test_unknown_command_is_a_mistake_with_a_hint() -> None:
    item = only("/aprove spec=4")
    assert isinstance(item, CommandMistake)
    assert "unknown command `/aprove`" in item.message
    assert "approve" in item.message


def test_multiple_commands_are_numbered_in_order() -> None:
    found = parse_commands("/score spec=4\nsome prose\n/approve quality=4\n/shrug")
    assert [(c.name, c.index) for c in found] == [("score", 0), ("approve", 1), ("shrug", 2)]
    assert isinstance(found[2], CommandMistake)


def test_each_command_accepts_only_its_own_arguments() -> None:
    cases = {
        "/rubric please": "no arguments",
        "/approve looks good": "`looks` is not ID=N",
        "/score": "at least one ID=N",
        "/score -- only a note": "at least one ID=N",
        "/score spec=great": "not a number",
        "/score spec=4 spec=5": "given twice",
        "/rate 6": "from 1 to 5",
        "/rate": "not nothing",
        "/revise": "text is required",
        "/dispute": "text is required",
        "/override too short": "at least 20",
        "/rubricate status": "only argument is `help`",
        "/score spec=nan": "not a number",
    }
    for body, expected in cases.items():
        item = only(body)
        assert isinstance(item, CommandMistake), body
        assert expected in item.message, (body, item.message)


def test_free_text_runs_to_the_next_command() -> None:
    found = parse_commands("/revise Please fix:\n- the schema\n- the tests\n/rubric")
    assert isinstance(found[0], ParsedCommand)
    assert found[0].text == "Please fix:\n- the schema\n- the tests"
    assert found[1].name == "rubric"


def test_override_reason_may_continue_on_the_next_lines() -> None:
    item = only("/override\nThe failing criterion is covered by issue #12 instead.")
    assert isinstance(item, ParsedCommand)
    assert item.text.startswith("The failing")


def test_rate_note_and_null_and_booleans() -> None:
    rate = only("/rate 4 quick and correct")
    assert isinstance(rate, ParsedCommand)
    assert (rate.rating, rate.text) == (4, "quick and correct")
    score = only("/score sub=null self=n/a ok=no")
    assert isinstance(score, ParsedCommand)
    assert score.scores == (("sub", None), ("self", None), ("ok", False))


def test_help_forms() -> None:
    assert only("/rubricate help").name == "help"
    assert only("/Rubricate").name == "help"


def test_too_many_commands_are_cut_with_one_mistake() -> None:
    found = parse_commands("\n".join("/rubric" for _ in range(MAX_COMMANDS + 5)))
    assert len(found) == MAX_COMMANDS + 1
    assert isinstance(found[-1], CommandMistake)


def test_crlf_line_endings() -> None:
    found = parse_commands("hello\r\n/score spec=4\r\n/approve\r\n")
    assert [c.name for c in found] == ["score", "approve"]


# --- properties ---------------------------------------------------------------------------

_ids = st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True)
_values = st.one_of(
    st.integers(min_value=0, max_value=100).map(float),
    st.booleans(),
    st.none(),
    st.sampled_from([0.5, 2.25, 3.75]),
)
_words = st.from_regex(r"[A-Za-z0-9,.'!?]{1,12}", fullmatch=True)
_text = st.lists(_words, min_size=1, max_size=8).map(" ".join)
_long_text = (
    st.lists(_words, min_size=4, max_size=10)
    .map(" ".join)
    .filter(lambda t: visible_length(t) >= 20 and readable_words(t) >= 3)
)


@st.composite
def valid_commands(draw: st.DrawFn) -> ParsedCommand:
    """A well-formed command, as a parser result to round-trip."""
    name = draw(st.sampled_from([spec.name for spec in COMMANDS]))
    scores: tuple[tuple[str, object], ...] = ()
    text, rating = "", None
    if name in ("score", "approve"):
        keys = draw(st.lists(_ids, min_size=1 if name == "score" else 0, max_size=5, unique=True))
        scores = tuple((key, draw(_values)) for key in keys)
    if name == "score":
        text = draw(st.one_of(st.just(""), _text))
    elif name in ("revise", "dispute"):
        text = draw(_text)
    elif name == "override":
        text = draw(_long_text)
    elif name == "rate":
        rating = draw(st.integers(min_value=1, max_value=5))
        text = draw(st.one_of(st.just(""), _text))
    return ParsedCommand(name, 0, 1, "", scores, text, rating)  # type: ignore[arg-type]


@given(st.lists(valid_commands(), min_size=1, max_size=MAX_COMMANDS))
@settings(max_examples=200, deadline=None)
def test_generated_commands_round_trip(commands: list[ParsedCommand]) -> None:
    body = "\n".join(format_command(command) for command in commands)
    parsed = parse_commands(body)
    assert len(parsed) == len(commands)
    for index, (want, got) in enumerate(zip(commands, parsed, strict=True)):
        assert isinstance(got, ParsedCommand), (body, got)
        assert (got.name, got.index, got.line) == (want.name, index, index + 1)
        assert (got.scores, got.text, got.rating) == (want.scores, want.text, want.rating)


@given(st.text(max_size=400))
@settings(max_examples=300, deadline=None)
def test_parser_never_raises_on_arbitrary_text(body: str) -> None:
    for item in parse_commands(body):
        assert item.index >= 0
        assert isinstance(item, (ParsedCommand, CommandMistake))


_noise = st.text(alphabet=st.sampled_from("/ `~>-<!abc=1\n"), max_size=200)


@given(_noise)
@settings(max_examples=300, deadline=None)
def test_parser_never_raises_on_markdown_like_noise(body: str) -> None:
    assert len(parse_commands(body)) <= MAX_COMMANDS + 1


@pytest.mark.parametrize("wrapper", ["```\n{}\n```", "> {}", "<!-- {} -->", "~~~\n{}"])
@given(command=valid_commands())
@settings(max_examples=25, deadline=None)
def test_hidden_commands_are_never_read(wrapper: str, command: ParsedCommand) -> None:
    text = format_command(command).replace("\n", " ")
    assert parse_commands(wrapper.format(text)) == []


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


def test_mistakes_keep_their_reasons_for_people_allowed_to_run_them() -> None:
    (item,) = parse_commands("/rate 7")
    assert isinstance(item, CommandMistake)
    assert "`7`" in item.message
    (ok,) = parse_commands("/rate 4 fine")
    assert isinstance(ok, ParsedCommand)
    assert replace(ok, raw="") == ParsedCommand("rate", 0, 1, "", (), "fine", 4)
