"""`rubricate score --base`: three-dot changes, empty changes, decided verdicts, judge key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rubricate.cli.main import main

from .gitrepo import commit, git, make_change


@pytest.fixture(autouse=True)
def _no_judge_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def score(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["score", "--no-graders", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def diverged(tmp_path: Path) -> Path:
    """`topic` changes one file; `main` moved on afterwards with an unrelated file."""
    change = make_change(tmp_path, {"README.md": "hello\n"}, {"src/app.py": "X = 1\n"})
    git(change.repo, "checkout", "-q", "main")
    commit(change.repo, {"docs/later.md": "".join(f"line {n}\n" for n in range(200))})
    git(change.repo, "checkout", "-q", "topic")
    return change.repo


def test_base_scores_from_the_merge_base(
    diverged: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = score(
        capsys, "--repo", str(diverged), "--base", "main", "--format", "json", "--judge", "none"
    )
    data = json.loads(out)
    assert code == 0
    assert data["base"] == git(diverged, "merge-base", "main", "topic")
    inputs = next(c for c in data["checks"] if c["id"] == "inputs")
    assert "docs/later.md" not in json.dumps(inputs)
    assert "1 file" in " ".join(inputs.get("evidence", []))


@pytest.mark.parametrize("head", ["main", "topic~1"])
def test_an_empty_change_is_a_usage_error(
    diverged: Path, capsys: pytest.CaptureFixture[str], head: str
) -> None:
    code, out, err = score(capsys, "--repo", str(diverged), "--base", "main", "--head", head)
    assert code == 2
    assert out == ""
    assert "nothing to score" in err


def test_judge_openai_without_a_key_fails_before_the_graders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "ran"
    config = f"graders:\n  - id: t\n    run: touch {marker}\n    criterion: verifiability\n"
    change = make_change(tmp_path, {".github/rubricate.yml": config}, {"a.py": "X = 1\n"})
    code = main(["score", "--repo", str(change.repo), "--judge", "openai"])
    _, err = capsys.readouterr()
    assert code == 2
    assert "OPENAI_API_KEY" in err
    assert not marker.exists()


def test_a_decided_fail_fails_the_pre_push_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = 'deliverables:\n  - glob: "out/*.json"\n'
    head = {"out/result.json": "{not json", "src/app.py": "def f():\n    pass  # TODO\n"}
    change = make_change(tmp_path, {".github/rubricate.yml": config}, head)
    code, out, _ = score(capsys, "--repo", str(change.repo), "--fail-on", "fail", "--judge", "none")
    assert code == 1
    assert "verdict: fail, already decided" in out
    assert "of 5 scored" in out
    assert "total" in out
    assert "normalized" not in out.split("verdict:")[0]
