"""A commit streamed to `git fast-import`: files sent one at a time, nothing committed before
`finish`, an aborted or failed stream leaves the refs as they were."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rubricate.gitio.fastimport import CommitStream, data_command
from rubricate.gitio.run import GitError

REF = "refs/heads/streamed"
HEADER = b"author A <a@example.com> 0 +0000\ncommitter A <a@example.com> 0 +0000\n"


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, check=False, text=True)
    return done.stdout.strip() if done.returncode == 0 else ""


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(repo)], check=True)
    return repo


def _stream(repo: Path, parent: str | None = None) -> CommitStream:
    return CommitStream(repo, {}, REF, parent, HEADER + data_command(b"message\n"))


def test_files_sent_one_at_a_time_make_one_commit_on_the_parent(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    with _stream(repo) as stream:
        assert not stream.started
        stream.put("a/one.json", b"1\n")
        assert stream.started
        stream.put("two.json", b"2\n")
        first = stream.finish()
    assert _git(repo, "rev-parse", REF) == first
    with _stream(repo, first) as stream:
        stream.delete("two.json")
        stream.put("a/three.json", b"3\n")
        second = stream.finish()
    assert _git(repo, "rev-parse", f"{second}~1") == first
    assert _git(repo, "ls-tree", "-r", "--name-only", second).split() == [
        "a/one.json",
        "a/three.json",
    ]


def test_an_aborted_stream_commits_nothing(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    with _stream(repo) as stream:
        stream.put("one.json", b"1\n" * 100_000)
        stream.abort()
        assert not stream.started
    assert _git(repo, "rev-parse", "--verify", "--quiet", REF) == ""


def test_a_stream_git_refuses_says_why_and_commits_nothing(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    with _stream(repo, "1" * 40) as stream:
        stream.put("one.json", b"1\n")
        with pytest.raises(GitError, match="Not a valid commit"):
            stream.finish()
    assert _git(repo, "rev-parse", "--verify", "--quiet", REF) == ""
