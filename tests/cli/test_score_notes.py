"""`rubricate score` says what it left out (edits not committed) and counts files in English."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rubricate.cli.main import main
from tests.evidence.gitrepo import make_change

NOTE = "uncommitted file"


@pytest.fixture(autouse=True)
def _no_judge_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def _score(capsys: pytest.CaptureFixture[str], repo: Path, *args: str) -> tuple[str, str]:
    argv = ["score", "--repo", str(repo), "--base", "main", "--judge", "none", *args]
    assert main(argv) == 0
    return capsys.readouterr()


def test_uncommitted_edits_are_named_as_not_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    change = make_change(tmp_path, {"a.txt": "1\n"}, {"b.txt": "2\n"})
    _, err = _score(capsys, change.repo)
    assert NOTE not in err
    (change.repo / "b.txt").write_text("edited\n")
    (change.repo / "new.txt").write_text("new\n")
    _, err = _score(capsys, change.repo)
    assert "note: 2 uncommitted files are not scored" in err
    _, err = _score(capsys, change.repo, "--head", "topic")  # a named commit: nothing to say
    assert NOTE not in err


def test_one_file_changed_is_singular(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    change = make_change(tmp_path, {"a.txt": "1\n"}, {"b.txt": "2\n"})
    out, _ = _score(capsys, change.repo, "--format", "json")
    inputs = next(c for c in json.loads(out)["checks"] if c["id"] == "inputs")
    assert inputs["evidence"][0].startswith("1 file changed")
