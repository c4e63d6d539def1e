"""Views: escaping, size limits, purity of the views and of the bot package."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rubricate.bot
from rubricate.bot.check_run import CHECK_LIMIT, check_run, check_summary
from rubricate.bot.effects import SetCheckRun, UpsertComment, effect_to_dict
from rubricate.bot.jobstate import job_state
from rubricate.bot.markdown import block, cell, code, escape, truncate
from rubricate.bot.sticky import COMMENT_LIMIT, STICKY_MARKER, sticky_body

from .conftest import AGORA_AUTO, REPO, Harness, of_type

FORBIDDEN = {"github", "openai", "subprocess", "socket", "urllib", "http", "httpx", "requests"}


def test_bot_core_imports_no_io_modules() -> None:
    package = Path(rubricate.bot.__file__).parent
    for path in sorted(package.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN, (path.name, name)
        assert "(pure" in (ast.get_docstring(ast.parse(path.read_text())) or "(pure"), path.name


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


def test_sticky_comment_stays_under_the_comment_limit(bot: Harness) -> None:
    bot.open(scores=AGORA_AUTO)
    for n in range(120):
        bot.say("/revise " + "x" * 990, comment_id=5000 + n)
    body = of_type(bot.effects, UpsertComment)[0].body
    assert len(body) < COMMENT_LIMIT
    assert body.startswith(STICKY_MARKER)
    assert "truncated" in body


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


def test_views_are_pure_functions_of_the_ledger(bot: Harness) -> None:
    bot.open(scores=AGORA_AUTO)
    bot.say("/score spec=4 quality=3")
    bot.push("c" * 40, "2" * 40, at="2024-03-02T10:00:00Z")
    rebuilt = job_state(list(reversed(bot.ledger)), REPO, 7)
    assert sticky_body(rebuilt, bot.rubric) == of_type(bot.effects, UpsertComment)[0].body
    again = check_run(rebuilt, bot.rubric, "c" * 40, None)
    assert again == check_run(bot.job, bot.rubric, "c" * 40, None)


def test_check_run_uses_the_report_renderer_when_a_report_is_given(bot: Harness) -> None:
    effects = bot.open(scores=AGORA_AUTO)
    check = of_type(effects, SetCheckRun)[0]
    assert "rubricate: **incomplete**" in check.summary
    assert "informational" in check.summary
    assert check.text == ""


@pytest.mark.parametrize("step", ["open", "comment"])
def test_effects_serialize_to_json_lines(bot: Harness, step: str) -> None:
    import json

    effects = bot.open() if step == "open" else bot.say("/rubric")
    for effect in effects:
        line = json.dumps(effect_to_dict(effect))
        assert json.loads(line)["effect"] == type(effect).__name__
