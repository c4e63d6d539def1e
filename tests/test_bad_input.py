"""Bad input at every command-line entry point: a clear message, the documented exit code, no
traceback, and nothing half-written (regressions found by a bad-input sweep)."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import requests

from rubricate.cli.main import main
from tests.evidence.gitrepo import commit, git, init_repo, make_change
from tests.ledger.factory import completed_job, event
from tests.ledger.gitutil import bare_remote, branch_files, commit_count

ROOT = Path(__file__).resolve().parents[1]
PR_OPENED = ROOT / "tests" / "action" / "fixtures" / "pull_request.opened.json"
ACTION_ENV = (
    "GITHUB_TOKEN",
    "INPUT_GITHUB-TOKEN",
    "GITHUB_REPOSITORY",
    "GITHUB_OUTPUT",
    "GITHUB_STEP_SUMMARY",
    "GITHUB_EVENT_NAME",
    "GITHUB_EVENT_PATH",
    "RUBRICATE_REPO_REMOTE",
    "RUBRICATE_DATA_REMOTE",
    "OPENAI_API_KEY",
    "INPUT_OPENAI-API-KEY",
    "INPUT_DATA-BRANCH",
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the CLI in-process: exit code, stdout, stderr (never a traceback)."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def run_process(*argv: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """Run `python -m rubricate.cli.main ARGV` in a child process."""
    command = [sys.executable, "-m", "rubricate.cli.main", *argv]
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **kwargs}
    return subprocess.run(command, text=True, check=False, **streams)


def events_file(path: Path, lines: list[str]) -> str:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def raw_event(**changes: Any) -> str:
    """One valid event as a JSON line, with some fields replaced (its id derived again)."""
    data = json.loads(event("first_submission", 1, 0, "d1").to_line())
    data.pop("id")
    data.update(changes)
    return json.dumps(data)


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """A bare remote whose data branch holds one completed job."""
    path = bare_remote(tmp_path)
    lines = [e.to_line() for e in completed_job(1, [4, 3, 3, 3, 5], [5, 5, 5, 5, 5])]
    assert (
        main(["ledger", "append", "--remote", str(path), events_file(tmp_path / "e", lines)]) == 0
    )
    return path


@pytest.fixture
def action_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A runner-like environment without a token or outputs."""
    for name in ACTION_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


# validate ------------------------------------------------------------------------------------


def test_a_text_criteria_key_is_named_without_a_self_suggestion(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.yml"
    path.write_text("criteria: just do it well\n")
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 2
    assert f"{path}:1:11: criteria should be a list of criteria, got 'just do it well'" in out
    assert "did you mean" not in out


def _config_repo(tmp_path: Path, config: str) -> Path:
    (tmp_path / ".github").mkdir(exist_ok=True)
    path = tmp_path / ".github" / "rubricate.yml"
    path.write_text(config)
    return path


@pytest.mark.parametrize(
    ("deliverables", "message"),
    [
        ('[{glob: "*.json", schema: nope.json}]', "1:41: schema nope.json: no such file"),
        ('[{glob: "*.json", schema: schemas}]', "schema schemas: is a directory, not a file"),
        ('[{glob: "*.json", schema: {type: 5}}]', "is not a valid JSON Schema"),
        ('[{glob: "*.json", schema: schemas/bad.json}]', "schemas/bad.json does not parse"),
        ('[{glob: "*.json", schema: schemas/deep.json}]', "deep.json nests too deeply to check"),
    ],
)
def test_validate_checks_the_deliverable_schemas_a_config_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], deliverables: str, message: str
) -> None:
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "bad.json").write_text("{")
    (tmp_path / "schemas" / "deep.json").write_text(
        '{"properties": {"a": ' * 100 + "{}" + "}}" * 100
    )
    path = _config_repo(tmp_path, f"deliverables: {deliverables}\n")
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 2
    assert message in out
    assert "ok " not in out


def test_validate_warns_about_a_grader_that_scores_no_criterion(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _config_repo(tmp_path, "graders: [{id: a, run: 'true', criterion: nope}]\n")
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 0
    assert "warning: scores no criterion: unknown criterion 'nope'" in out
    assert run(capsys, "validate", "--strict", str(path))[0] == 2


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("graders: [{id: a, run: x, criterion: spec, timeout: 1e300}]", "at most 86400 seconds"),
        ("graders: [{id: a, run: x, criterion: spec, timeout: .inf}]", "a finite number, got inf"),
        ("graders: [{id: a, run: ' ', criterion: spec}]", "the command is empty"),
        ("judge: {timeout_s: .inf}", "timeout_s should be a finite number"),
        ("reputation: {weights: {completion_rate: 1e308, rating_score: 1e308}}", "not a finite"),
        ("reputation: {trust: {admin: 1e308, write: 1e308}}", "their sum is not a finite number"),
        ("data_branch: 'bad..name'", "'bad..name' is not a valid git branch name"),
        ("data_branch: ''", "'' is not a valid git branch name: it is empty"),
    ],
)
def test_config_values_that_would_crash_later_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], config: str, message: str
) -> None:
    path = _config_repo(tmp_path, config + "\n")
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 2
    assert message in out


# rubric show / score ---------------------------------------------------------------------------


def test_rubric_show_with_a_config_that_is_not_utf8(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _config_repo(tmp_path, "")
    path.write_bytes(b"rubric: \xff\xfe\n")
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "rubric", "show")
    assert code == 2
    assert "cannot read the config .github/rubricate.yml: not UTF-8 text" in err


def test_rubric_show_refuses_a_config_that_was_named_but_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "rubric", "score", "--config", str(tmp_path / "no.yml"), "s=3")
    assert code == 2
    assert f"cannot read the config {tmp_path / 'no.yml'}: no such file" in err


def test_a_config_whose_rubric_is_missing_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _config_repo(tmp_path, "rubric: rubrics/gone.yml\n")
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "rubric", "show")
    assert code == 2
    assert "rubric 'rubrics/gone.yml' not found" in err
    assert "(named by .github/rubricate.yml)" in err


@pytest.mark.parametrize(
    ("value", "shown"),
    [("nan", "'nan'"), ("-inf", "'-inf'"), ("1e400", "'1e400'"), ("true", "true")],
)
def test_rubric_score_names_the_value_it_refuses(
    capsys: pytest.CaptureFixture[str], value: str, shown: str
) -> None:
    code, _, err = run(capsys, "rubric", "score", "agora-v3", f"spec={value}")
    assert code == 2
    assert f"spec_adherence: {shown} is not a number; expected a number from 1 to 5" in err


# score -----------------------------------------------------------------------------------------


def test_score_in_a_repository_without_commits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = init_repo(tmp_path / "empty")
    code, _, err = run(capsys, "score", "--repo", str(repo))
    assert code == 2
    assert "it names no commit (the repository has no commits yet)" in err


def test_score_in_a_shallow_clone_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    change = make_change(tmp_path, {"a.txt": "a\n"}, {"a.txt": "b\n"})
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", change.repo.as_uri(), str(clone))
    code, _, err = run(capsys, "score", "--repo", str(clone), "--base", "HEAD~1")
    assert code == 2
    assert "unknown ref 'HEAD~1'" in err
    assert "shallow clone" in err


def test_score_with_a_file_as_repo_and_a_binary_spec(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "file"
    file.write_text("x")
    code, _, err = run(capsys, "score", "--repo", str(file))
    assert (code, err.strip()) == (2, f"rubricate: error: not a directory: {file}")
    change = make_change(tmp_path, {"a.txt": "a\n"}, {"a.txt": "b\n"})
    spec = tmp_path / "spec.md"
    spec.write_bytes(b"\xff\xfe spec")
    code, _, err = run(
        capsys, "score", "--repo", str(change.repo), "--base", "main", "--spec", str(spec)
    )
    assert code == 2
    assert f"cannot read --spec {spec}: not UTF-8 text" in err


def test_score_with_a_huge_grader_timeout_at_the_base_is_a_config_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = "graders: [{id: t, run: 'true', criterion: verifiability, timeout: 1e300}]\n"
    change = make_change(tmp_path, {".github/rubricate.yml": config}, {"a.txt": "a\n"})
    code, _, err = run(capsys, "score", "--repo", str(change.repo), "--base", "main")
    assert code == 2
    assert ".github/rubricate.yml:1:" in err
    assert "at most 86400 seconds" in err


def test_a_grader_answer_with_infinite_bounds_is_an_error_and_the_json_stays_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = '{"score": 0.5, "min": -1e999, "max": 1e999}'
    config = f"graders: [{{id: g, run: 'echo {json.dumps(answer)}', criterion: quality}}]\n"
    change = make_change(tmp_path, {".github/rubricate.yml": config}, {"a.txt": "a\n"})
    code, out, _ = run(
        capsys, "score", "--repo", str(change.repo), "--base", "main", "--format", "json"
    )
    assert code == 0
    report = json.loads(out, parse_constant=lambda name: pytest.fail(f"{name} in the output"))
    grader = next(c for c in report["checks"] if c["id"] == "grader:g")
    assert grader["status"] == "error"
    assert "min and max must be numbers" in grader["findings"][0]["message"]


def test_deeply_nested_yaml_and_toml_in_a_change_do_not_crash_the_process(
    tmp_path: Path,
) -> None:
    deep = "[" * 50_000 + "]" * 50_000
    change = make_change(
        tmp_path,
        {"README.md": "x\n"},
        {"out/deep.yml": f"a: {deep}\n", "out/deep.toml": f"a = {deep}\n"},
    )
    proc = run_process(
        "score", "--repo", str(change.repo), "--base", "main", "--format", "json", timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    messages = [f["message"] for c in json.loads(proc.stdout)["checks"] for f in c["findings"]]
    assert "YAML document is nested too deeply" in messages
    assert "invalid TOML: nested too deeply" in messages


def test_validate_refuses_deep_yaml_before_libyaml_can_crash(tmp_path: Path) -> None:
    path = tmp_path / "deep.yml"
    path.write_text("a: " + "[" * 50_000 + "]" * 50_000 + "\n")
    proc = run_process("validate", str(path), timeout=120)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    # PyYAML 6.0.4 stops at its own depth limit first; earlier ones reach Python's recursion limit
    depth = r"YAML document is nested too deeply|YAML syntax error: exceeded maximum nesting depth"
    assert re.fullmatch(rf"{re.escape(str(path))}:1:\d+: ({depth})", proc.stdout.strip())


# ledger append ---------------------------------------------------------------------------------


def test_a_year_one_time_round_trips_through_the_ledger(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    remote = bare_remote(tmp_path)
    path = events_file(tmp_path / "e", [raw_event(at="0001-01-01T00:00:00Z")])
    assert run(capsys, "ledger", "append", "--remote", str(remote), path)[0] == 0
    assert b"0001-01-01T00:00:00Z" in branch_files(remote)["ledger/0001-01.jsonl"]
    assert run(capsys, "ledger", "verify", "--remote", str(remote))[0] == 0


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (raw_event(at="0001-01-01T00:00:00+01:00"), "line 2: at: the time is out of range in UTC"),
        (raw_event(at="9999-12-31T23:59:59-01:00"), "line 2: at: the time is out of range in UTC"),
        (raw_event(repo=".."), "line 2: repo: must look like owner/name, not '..'"),
        (raw_event(repo="a/b\nc"), "line 2: repo: must look like owner/name"),
        (raw_event(pr=2**40), "line 2: pr: must be at most 2147483647"),
        ("[" * 100_000 + "]" * 100_000, "line 2: not an event (JSON nested too deeply)"),
    ],
)
def test_an_event_that_cannot_be_stored_rejects_the_batch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, message: str
) -> None:
    remote = bare_remote(tmp_path)
    path = events_file(tmp_path / "e", [raw_event(delivery="fine"), line])
    code, _, err = run(capsys, "ledger", "append", "--remote", str(remote), path)
    assert code == 2
    assert message in err
    assert "no events were appended" in err
    assert commit_count(remote) == 0


def test_append_from_a_closed_or_undecodable_stdin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    remote = bare_remote(tmp_path)
    monkeypatch.setattr(sys, "stdin", None)
    code, _, err = run(capsys, "ledger", "append", "--remote", str(remote), "-")
    assert (code, err.strip()) == (
        2,
        "rubricate: error: cannot read events from standard input: it is closed",
    )
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\xff\n")))
    code, _, err = run(capsys, "ledger", "append", "--remote", str(remote), "-")
    assert code == 2
    assert "cannot read events from standard input: not UTF-8 text" in err
    assert commit_count(remote) == 0


def test_a_data_directory_that_cannot_be_written_is_left_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "ledger").write_text("a file where the ledger directory belongs\n")
    path = events_file(tmp_path / "e", [e.to_line() for e in completed_job(1, [3] * 5, [4] * 5)])
    code, _, err = run(capsys, "ledger", "append", "--data", str(data), path)
    assert code == 2
    assert "cannot write ledger/2024-03.jsonl: a file stands where its directory should be" in err
    assert "nothing was written" in err
    assert sorted(p.name for p in data.rglob("*")) == ["ledger"]


# ledger verify / show, reputation ------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [["ledger", "show"], ["ledger", "verify"], ["reputation"], ["reputation", "--recompute"]],
)
def test_bad_remotes_and_branches_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], remote: Path, command: list[str]
) -> None:
    (tmp_path / "plain").mkdir()
    (tmp_path / "file").write_text("x")
    cases = {
        "": "--remote is empty",
        str(tmp_path / "gone"): "no such directory",
        str(tmp_path / "file"): "not a directory, so not a git repository",
        str(tmp_path / "plain"): f"--remote {tmp_path / 'plain'}: not a git repository",
    }
    for given, message in cases.items():
        code, _, err = run(capsys, *command, "--remote", given)
        assert (code, err.count("\n")) == (2, 1), err
        assert message in err
    code, _, err = run(capsys, *command, "--remote", str(remote), "--branch", "bad..name")
    assert code == 2
    assert "--branch 'bad..name' is not a valid branch name" in err
    code, _, err = run(capsys, *command, "--remote", str(remote), "--branch", "typo")
    assert code == 2
    assert "no branch 'typo'" in err


def test_an_unreachable_remote_is_a_failed_run_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for proxy in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        monkeypatch.delenv(proxy, raising=False)  # loopback only, never a proxy
    code, _, err = run(capsys, "ledger", "show", "--remote", "http://127.0.0.1:9/data.git")
    assert code == 1
    assert err.startswith("rubricate: error: data branch 'rubricate-data': git fetch")
    assert err.count("\n") == 1


def test_reputation_of_an_unknown_author(capsys: pytest.CaptureFixture[str], remote: Path) -> None:
    code, _, err = run(capsys, "reputation", "--remote", str(remote), "--author", "alcie")
    assert code == 2
    assert "no author 'alcie' in reputation.json (did you mean 'alice'?); authors: alice" in err


def test_ledger_show_of_a_job_in_another_repository(
    capsys: pytest.CaptureFixture[str], remote: Path
) -> None:
    code, _, err = run(
        capsys, "ledger", "show", "--remote", str(remote), "--pr", "1", "--repo", "x/y"
    )
    assert (code, err.strip()) == (2, "rubricate: error: no events for pull request #1 in x/y")


@pytest.mark.parametrize("content", ['{"repos": {"o/r": {}}}', '{"a": 1}', "[1]", "{"])
def test_a_malformed_reputation_json_is_reported_not_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str
) -> None:
    (tmp_path / "reputation.json").write_text(content)
    for extra in ([], ["--author", "alice"]):
        code, _, err = run(capsys, "reputation", "--data", str(tmp_path), *extra)
        assert code == 2
        assert "no readable reputation.json" in err
        assert "verify --fix" in err


# action ----------------------------------------------------------------------------------------


def _dry_run(capsys: pytest.CaptureFixture[str], event_path: Path | str) -> tuple[int, str, str]:
    return run(
        capsys,
        "action",
        "--dry-run",
        "--event-name",
        "pull_request",
        "--event-path",
        str(event_path),
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "is nested too deeply"),
        (b"\xff\xfe{}", "not UTF-8 text"),
        ("{}", "`action` is missing or not a string; is this a pull_request event?"),
    ],
)
def test_action_payloads_that_are_not_events(
    action_env: Path, capsys: pytest.CaptureFixture[str], content: str | bytes, message: str
) -> None:
    path = action_env / "event.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    code, out, err = _dry_run(capsys, path)
    assert (code, out) == (2, "")
    assert message in err


@pytest.mark.parametrize("variable", ["GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"])
def test_action_outputs_that_cannot_be_written(
    action_env: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    variable: str,
) -> None:
    monkeypatch.setenv(variable, str(action_env / "missing" / "file"))
    code, _, err = _dry_run(capsys, PR_OPENED)
    assert code == 2
    assert (
        f"::error::rubricate: cannot write ${variable} ({action_env / 'missing' / 'file'})" in err
    )


def test_action_refuses_an_invalid_data_branch_input(
    action_env: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INPUT_DATA-BRANCH", "data branch")
    code, _, err = _dry_run(capsys, PR_OPENED)
    assert code == 2
    assert "input data-branch 'data branch' is not a valid branch name" in err


def test_action_dry_run_into_a_closed_pipe(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)
    env = {k: v for k, v in os.environ.items() if k not in ACTION_ENV}
    args = ("action", "--dry-run", "--event-name", "pull_request", "--event-path", str(PR_OPENED))
    try:
        proc = run_process(*args, stdout=write_end, env=env, cwd=tmp_path)
    finally:
        os.close(write_end)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "Broken pipe" not in proc.stderr


# catch-up and the GitHub client ----------------------------------------------------------------


def test_catch_up_names_a_bad_repo_argument(
    action_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "catch-up", "--dry-run", "--repo", "widgets")
    assert (code, err.strip()) == (
        2,
        "rubricate: error: --repo must look like OWNER/NAME, not 'widgets'",
    )


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (requests.ConnectionError(), "could not connect to the server (ConnectionError)"),
        (requests.ReadTimeout(), "the server did not answer in time (ReadTimeout)"),
    ],
)
def test_github_transport_errors_say_what_happened(
    error: requests.RequestException, reason: str
) -> None:
    from rubricate.github.client import GitHubError, api_call

    def fail() -> None:
        raise error

    with pytest.raises(GitHubError) as caught:
        api_call("GET /repos/o/r", fail)
    assert str(caught.value) == f"GitHub API: GET /repos/o/r failed: {reason}"
    assert caught.value.exit_code == 1


def test_a_git_failure_is_a_failed_run_not_a_usage_error(tmp_path: Path) -> None:
    from rubricate.gitio.run import GitError, run_git

    repo = init_repo(tmp_path / "repo")
    commit(repo, {"a": "a\n"})
    with pytest.raises(GitError) as caught:
        run_git(["fetch", str(tmp_path / "nowhere")], repo)
    assert caught.value.exit_code == 1
    assert "\n" not in str(caught.value)
