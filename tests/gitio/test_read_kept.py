"""Files read at a commit are kept: the same read again runs no git."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubricate.gitio import refs
from rubricate.gitio.refs import read_file_at
from tests.ledger.gitutil import bare_remote, commit_files, git


def test_a_file_read_again_at_the_same_commit_runs_no_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    remote = bare_remote(tmp_path)
    work = tmp_path / "work"
    commit_files(remote, {"a.yml": b"a: 1\n", "big.bin": b"x" * (refs.KEPT_BYTES + 1)}, work)
    commit = git("rev-parse", "HEAD", cwd=work)
    assert read_file_at(work, commit, "a.yml") == b"a: 1\n"
    with pytest.raises(FileNotFoundError):
        read_file_at(work, commit, "absent.yml")
    assert read_file_at(work, commit, "big.bin")

    def no_git(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("git ran")

    monkeypatch.setattr(refs, "run_git", no_git)
    assert read_file_at(work, commit, "./a.yml") == b"a: 1\n"
    with pytest.raises(FileNotFoundError):
        read_file_at(work, commit, "absent.yml")  # an absence is kept too
    with pytest.raises(AssertionError, match="git ran"):
        read_file_at(work, commit, "big.bin")  # a large file is read each time
    with pytest.raises(AssertionError, match="git ran"):
        read_file_at(work, "HEAD", "a.yml")  # a ref that is no SHA is resolved each time
