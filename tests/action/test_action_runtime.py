"""Workflow commands, `$GITHUB_OUTPUT` blocks, the step summary and the settings from env."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rubricate.action import runtime as wc
from rubricate.action.runtime import SUMMARY_LIMIT, ActionsRuntime
from rubricate.action.settings import ActionSettings, parse_bool, settings_from_env
from rubricate.errors import ConfigError


def test_commands_escape_data_and_properties() -> None:
    assert wc.group("Read the PR") == "::group::Read the PR"
    assert wc.endgroup() == "::endgroup::"
    assert wc.add_mask("s3cr%t") == "::add-mask::s3cr%25t"
    line = wc.annotation("error", "bad\nvalue 100%", path="out/a,b:c.json", line=3, title="format")
    assert line == "::error file=out/a%2Cb%3Ac.json,line=3,title=format::bad%0Avalue 100%25"
    assert wc.annotation("warning", "no file", line=4) == "::warning::no file"
    with pytest.raises(ValueError, match="level"):
        wc.annotation("fatal", "x")


def _parse_outputs(text: str) -> dict[str, str]:
    """Read `$GITHUB_OUTPUT` the way the runner does (heredoc form)."""
    found: dict[str, str] = {}
    lines = iter(text.split("\n"))
    for line in lines:
        if not line:
            continue
        name, _, delimiter = line.partition("<<")
        value: list[str] = []
        for item in lines:
            if item == delimiter:
                break
            value.append(item)
        found[name] = "\n".join(value)
    return found


@given(
    st.text(
        alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r"),
        max_size=200,
    )
)
def test_output_values_round_trip_whatever_they_hold(value: str) -> None:
    block = wc.output_block("report", value, "ghadelimiter_fixed")
    if "ghadelimiter_fixed" in value:
        return
    assert _parse_outputs(block) == {"report": value}


def test_output_block_refuses_a_delimiter_inside_the_value() -> None:
    with pytest.raises(ValueError, match="delimiter"):
        wc.output_block("x", "a\nEOF\nb", "EOF")
    with pytest.raises(ValueError, match="name"):
        wc.output_block("a=b", "v", "EOF")


def test_runtime_writes_outputs_and_summary_and_masks(tmp_path: Path) -> None:
    output, summary, stream = tmp_path / "output", tmp_path / "summary", io.StringIO()
    runtime = ActionsRuntime(
        stream=stream,
        output_path=str(output),
        summary_path=str(summary),
        secrets=["tok123456"],
        in_actions=True,
    )
    runtime.set_outputs({"verdict": "pass", "report": "line 1\nline 2 tok123456"})
    runtime.add_summary("## Score\nuses tok123456")
    runtime.log("::set-output name=x::y\nplain tok123456")
    with runtime.group("Read"):
        runtime.annotate("warning", "look tok123456", path="a.json", line=2)
    assert _parse_outputs(output.read_text()) == {"verdict": "pass", "report": "line 1\nline 2 ***"}
    assert summary.read_text() == "## Score\nuses ***\n"
    log = stream.getvalue().splitlines()
    assert log == [
        "::add-mask::tok123456",
        ": :set-output name=x::y",
        "plain ***",
        "::group::Read",
        "::warning file=a.json,line=2::look ***",
        "::endgroup::",
    ]


def test_outside_actions_a_secret_is_redacted_but_never_printed_as_a_mask() -> None:
    stream = io.StringIO()
    runtime = ActionsRuntime(stream=stream, secrets=["ghs_0123456789abcdef"], in_actions=False)
    runtime.log("token ghs_0123456789abcdef")
    assert stream.getvalue() == "token ***\n"


@pytest.mark.parametrize("value", ["none", "null", "changeme", "xxxxxxxxxxxx", "abc"])
def test_placeholders_and_short_values_are_not_secrets(value: str) -> None:
    stream = io.StringIO()
    runtime = ActionsRuntime(stream=stream, secrets=[value], in_actions=True)
    runtime.log('"actor_role": "none", abc')
    assert stream.getvalue() == '"actor_role": "none", abc\n'


def test_summary_is_cut_at_one_mebibyte(tmp_path: Path) -> None:
    summary = tmp_path / "summary"
    summary.write_text("x" * 1000)
    runtime = ActionsRuntime(stream=io.StringIO(), summary_path=str(summary))
    runtime.add_summary("é" * SUMMARY_LIMIT)
    size = summary.stat().st_size
    assert size <= SUMMARY_LIMIT + 1
    assert summary.read_text(encoding="utf-8").rstrip().endswith("per step)_")


def test_outputs_are_logged_when_there_is_no_output_file() -> None:
    stream = io.StringIO()
    ActionsRuntime(stream=stream).set_outputs({"gate": "pending"})
    assert stream.getvalue() == "output gate=pending\n"


ENV = {
    "GITHUB_EVENT_NAME": "pull_request_target",
    "GITHUB_EVENT_PATH": "/tmp/event.json",
    "GITHUB_REPOSITORY": "octo/widgets",
    "GITHUB_TOKEN": "from-env",
    "GITHUB_API_URL": "https://ghe.example.com/api/v3/",
    "GITHUB_SERVER_URL": "https://ghe.example.com",
    "GITHUB_RUN_ID": "42",
}


def test_settings_read_inputs_and_standard_variables() -> None:
    env = {
        **ENV,
        "INPUT_GITHUB-TOKEN": "from-input",
        "INPUT_CONFIG": ".github/other.yml",
        "INPUT_RUBRIC": "rubrics/x.yml#case",
        "INPUT_DATA-BRANCH": "scores",
        "INPUT_OPENAI-API-KEY": "sk-1",
        "INPUT_OPENAI-BASE-URL": "http://127.0.0.1:9/v1",
        "INPUT_MODEL": "m",
        "INPUT_JUDGE-CACHE-DIR": "/tmp/c",
        "INPUT_DRY-RUN": "True",
    }
    settings = settings_from_env(env)
    assert settings.token == "from-input"
    assert settings.api_url == "https://ghe.example.com/api/v3"
    assert settings.repo_remote == "https://ghe.example.com/octo/widgets.git"
    assert settings.data_remote == settings.repo_remote
    assert (settings.config_path, settings.rubric, settings.data_branch) == (
        ".github/other.yml",
        "rubrics/x.yml#case",
        "scores",
    )
    assert settings.judge_env() == {
        "OPENAI_API_KEY": "sk-1",
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
    }
    assert settings.dry_run is True
    assert set(settings.secrets) == {"from-input", "sk-1"}


def test_settings_defaults_and_overrides() -> None:
    env = {
        **ENV,
        "RUBRICATE_REPO_REMOTE": "/srv/repo.git",
        "RUBRICATE_DATA_REMOTE": "/srv/data.git",
        "RUBRICATE_BOT_LOGIN": "me[bot]",
    }
    settings = settings_from_env(env, event_name="issue_comment", event_path="/x.json")
    assert (settings.event_name, settings.event_path) == ("issue_comment", "/x.json")
    assert (settings.repo_remote, settings.data_remote, settings.bot_login) == (
        "/srv/repo.git",
        "/srv/data.git",
        "me[bot]",
    )
    assert settings.token == "from-env"
    assert settings.dry_run is False
    plain = ActionSettings(event_name="e", event_path="p", repository="o/r", token=None)
    assert plain.repo_remote == "https://github.com/o/r.git"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({}, "GITHUB_EVENT_NAME"),
        ({"GITHUB_EVENT_NAME": "x"}, "GITHUB_EVENT_PATH"),
        ({**ENV, "GITHUB_REPOSITORY": "no-slash"}, "owner/name"),
        ({**ENV, "GITHUB_API_URL": "ftp://x"}, "http"),
        ({**ENV, "INPUT_DRY-RUN": "maybe"}, "true or false"),
    ],
)
def test_bad_settings_are_config_errors(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        settings_from_env(env)


def test_parse_bool() -> None:
    assert [parse_bool(v, "x") for v in ("true", "TRUE", "yes", "1", "false", "", "off")] == [
        True,
        True,
        True,
        True,
        False,
        False,
        False,
    ]


def test_the_judge_cache_variable_is_honoured_and_the_input_wins() -> None:
    assert settings_from_env({**ENV, "RUBRICATE_JUDGE_CACHE": "/srv/cache"}).judge_cache_dir == (
        "/srv/cache"
    )
    both = {**ENV, "RUBRICATE_JUDGE_CACHE": "/srv/cache", "INPUT_JUDGE-CACHE-DIR": "/tmp/c"}
    assert settings_from_env(both).judge_cache_dir == "/tmp/c"
    assert settings_from_env(ENV).judge_cache_dir is None
