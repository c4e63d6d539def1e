"""Command graders: the answer they give, and running them as real processes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from rubricate.cli.rubric_cmd import resolve_rubric
from rubricate.config import GraderCommand
from rubricate.evidence.graders import GraderRun, grader_payload, grader_result, skipped_graders
from rubricate.evidence.graders_run import grader_env, run_graders
from rubricate.evidence.snapshot import FileChange, Snapshot

GRADER = GraderCommand(id="t", run="true", criterion="verifiability", timeout=5)
PY = sys.executable


def answer(
    stdout: str = "", returncode: int | None = 0, **kwargs: object
) -> tuple[str, float | None, list[str]]:
    result = grader_result(GRADER, GraderRun(stdout=stdout, returncode=returncode, **kwargs))  # type: ignore[arg-type]
    return result.status, result.value, [f.message for f in result.findings]


def test_json_answers() -> None:
    assert answer('{"score": 0.9}') == ("pass", 0.9, [])
    assert answer('log line\n{"score": true, "findings": ["ok"]}') == ("pass", 1.0, ["ok"])
    assert answer('{"score": 4, "min": 1, "max": 5}') == ("pass", 0.75, [])
    findings = '[{"path": "a.py", "line": 3, "message": "bad", "severity": "error"}]'
    located = grader_result(GRADER, GraderRun(f'{{"score": 0.2, "findings": {findings}}}', "", 1))
    assert (located.status, located.findings[0].path, located.findings[0].line) == (
        "fail",
        "a.py",
        3,
    )


@pytest.mark.parametrize(
    ("stdout", "reason"),
    [
        ('{"score": 2}', "invalid answer: score 2 is outside 0..1"),
        ('{"score": "high"}', "invalid answer: score must be a number or a boolean, not 'high'"),
        ('{"score": 1, "findings": "x"}', "invalid answer: findings must be a list"),
        (
            '{"score": 1, "findings": [{"path": "a"}]}',
            "invalid answer: each finding must be a string",
        ),
        (
            '{"score": 1, "min": 2, "max": 1}',
            "invalid answer: min and max must be numbers with min < max",
        ),
    ],
)
def test_invalid_answers_are_errors_never_passes(stdout: str, reason: str) -> None:
    status, value, messages = answer(stdout)
    assert (status, value) == ("error", 0.0)
    assert messages[0].startswith(reason)


def test_exit_codes_timeouts_and_crashes() -> None:
    assert answer("all good") == ("pass", 1.0, [])
    assert answer("3 failed\n", 1) == ("fail", 0.0, ["exit code 1: 3 failed"])
    assert answer("", None, timed_out=True) == ("error", 0.0, ["timed out after 5s"])
    assert answer("", -9) == ("error", 0.0, ["crashed (exit status -9)"])
    assert answer("", 127, stderr="sh: nope: not found") == (
        "error",
        0.0,
        ["crashed (exit status 127): sh: nope: not found"],
    )
    assert answer("", None, error="No such file") == ("error", 0.0, ["could not run: No such file"])


def test_skipped_graders_say_why() -> None:
    [result] = skipped_graders([GRADER], "disabled")
    assert (result.status, result.value, result.criterion) == ("skip", None, "verifiability")
    assert result.findings[0].message == "not run: disabled"


def test_payload_lists_the_change() -> None:
    snap = Snapshot(
        "b" * 40, "h" * 40, title="T", changes=(FileChange("a.py", "added", additions=2),)
    )
    payload = grader_payload(snap, resolve_rubric("agora-v3"))
    assert payload["rubric"]["id"] == "agora-v3"
    assert payload["changes"] == [
        {
            "path": "a.py",
            "status": "added",
            "old_path": None,
            "additions": 2,
            "deletions": 0,
            "binary": False,
        }
    ]
    json.dumps(payload)


def test_untrusted_context_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    grader = GraderCommand(id="x", run=f"touch {marker}", criterion="quality")
    [result] = run_graders([grader], {}, tmp_path, trusted=False)
    assert result.status == "skip"
    assert not marker.exists()
    assert "only in local mode" in result.findings[0].message


def test_real_processes(tmp_path: Path) -> None:
    script = tmp_path / "grade.py"
    script.write_text(
        "import json, os, sys\n"
        "payload = json.load(sys.stdin)\n"
        "secret = os.environ.get('MY_API_TOKEN')\n"
        "print(json.dumps({'score': 0.8, 'findings': [payload['head'], str(secret)]}))\n"
    )
    graders = [
        GraderCommand(id="json", run=f"{PY} {script}", criterion="quality"),
        GraderCommand(id="fails", run="echo broken >&2; exit 3", criterion="verifiability"),
        GraderCommand(
            id="slow",
            run=f"{PY} -c 'import time; time.sleep(30)'",
            criterion="verifiability",
            timeout=0.5,
        ),
        GraderCommand(id="missing", run="no-such-command-rubricate", criterion="verifiability"),
    ]
    results = run_graders(graders, {"head": "abc"}, tmp_path, trusted=True)
    by_id = {r.id: r for r in results}
    assert by_id["grader:json"].value == 0.8
    assert [f.message for f in by_id["grader:json"].findings] == ["abc", "None"]
    assert by_id["grader:fails"].findings[0].message == "exit code 3: broken"
    assert by_id["grader:slow"].status == "error"
    assert by_id["grader:slow"].findings[0].message == "timed out after 0.5s"
    assert by_id["grader:missing"].status == "error"


def test_grader_env_drops_secrets() -> None:
    env = grader_env(
        {
            "PATH": "/bin",
            "GITHUB_TOKEN": "x",
            "OPENAI_API_KEY": "y",
            "INPUT_GITHUB-TOKEN": "z",
            "DB_PASSWORD": "p",
        }
    )
    assert env == {"PATH": "/bin", "RUBRICATE_GRADER": "1"}


@pytest.fixture(autouse=True)
def _secret_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_API_TOKEN", "s3cret")
