"""Real webhook payloads (../shared/github/webhooks) routed through `rubricate action --dry-run`."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from rubricate.cli.main import main
from tests.action.contract import SHARED

WEBHOOKS = SHARED / "github" / "webhooks"
CASES = {
    "pull_request.opened.json": ("pull_request", "first_submission"),
    "pull_request.synchronize.json": ("pull_request_target", "first_submission"),
    "pull_request.closed.merged.json": ("pull_request", "final_approval"),
    "issue_comment.created.pull_request.json": ("issue_comment", None),
}
_CLEARED = (
    "GITHUB_TOKEN",
    "INPUT_GITHUB-TOKEN",
    "GITHUB_REPOSITORY",
    "RUBRICATE_REPO_REMOTE",
    "RUBRICATE_DATA_REMOTE",
    "OPENAI_API_KEY",
    "INPUT_OPENAI-API-KEY",
    "GITHUB_EVENT_NAME",
    "GITHUB_EVENT_PATH",
)


@pytest.fixture
def action_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A runner-like environment with no token and temporary output files."""
    for name in _CLEARED:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "output"))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("name", sorted(CASES))
def test_real_payloads_route_through_a_dry_run(
    name: str, action_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = WEBHOOKS / name
    if not path.is_file():
        pytest.skip(f"{path} is not available")
    event_name, first_kind = CASES[name]
    code = main(["action", "--event-name", event_name, "--event-path", str(path), "--dry-run"])
    out, err = capsys.readouterr()
    assert code == 0, err
    if first_kind is None:  # the real comment holds no command: ignored before anything
        assert out == ""
        assert (
            err.strip()
            == "rubricate: ignored issue_comment: comment 453012966 on #1 holds no command"
        )
        return
    effects = [json.loads(line) for line in out.splitlines()]
    assert effects, err
    assert "no API reads" in err
    appended = effects[0]
    assert appended["effect"] == "AppendEvents"
    assert appended["events"][0]["kind"] == first_kind
    repo = json.loads(path.read_text())["repository"]["full_name"]
    assert appended["events"][0]["repo"] == repo
    assert "verdict<<" in (action_env / "output").read_text()


def test_own_fixture_edited_comment_is_ignored(
    action_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.action.payloads import issue_comment_event

    payload = issue_comment_event(
        comment_id=1,
        body="/score spec=4",
        actor="bob",
        number=3,
        pr_author="alice",
        at=datetime(2026, 1, 1, tzinfo=timezone.utc),
        action="edited",
    )
    path = action_env / "edited.json"
    path.write_text(json.dumps(payload))
    assert main(["action", "--event-name", "issue_comment", "--event-path", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip().startswith("rubricate: ignored issue_comment: ")
    assert "'edited' is not handled" in err


def test_missing_event_settings_exit_2(
    action_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["action", "--dry-run"]) == 2
    assert "GITHUB_EVENT_NAME is not set" in capsys.readouterr().err


def test_a_dry_run_without_a_token_loads_neither_client(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.action.payloads import pull_request_event

    at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    payload = pull_request_event(
        "opened", number=3, author="alice", head_sha="a" * 40, base_sha="b" * 40, created=at, at=at
    )
    path = tmp_path / "opened.json"
    path.write_text(json.dumps(payload))
    argv = ["action", "--event-name", "pull_request", "--event-path", str(path), "--dry-run"]
    code = (
        "import contextlib, io, sys\n"
        "from rubricate.cli.main import main\n"
        "quiet = contextlib.redirect_stdout(io.StringIO())\n"
        "with quiet, contextlib.redirect_stderr(io.StringIO()):\n"
        f"    rc = main({argv!r})\n"
        "print(rc, 'github' in sys.modules, 'openai' in sys.modules)\n"
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    command = [sys.executable, "-c", code]
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.stdout.split() == ["0", "False", "False"], done.stderr
