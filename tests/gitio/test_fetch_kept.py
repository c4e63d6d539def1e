"""A bare repository kept between runs (the worker's) fetches only the commits it lacks."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rubricate.errors import RubricateError
from rubricate.gitio.workspace import fetch_commits
from tests.ledger.gitutil import bare_remote, commit_files, git


def test_a_kept_repository_with_both_commits_fetches_nothing(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path)
    work = tmp_path / "work"
    commit_files(remote, {"a.txt": b"a\n"}, work, "base")
    base = git("rev-parse", "HEAD", cwd=work)
    commit_files(remote, {"b.txt": b"b\n"}, work, "head")
    head = git("rev-parse", "HEAD", cwd=work)
    dest = tmp_path / "kept.git"
    assert fetch_commits(str(remote), base, head, dest, token=None) == base
    gone = tmp_path / "gone.git"
    remote.rename(gone)  # any fetch now fails
    assert fetch_commits(str(remote), base, head, dest, token=None) == base
    gone.rename(remote)
    commit_files(remote, {"c.txt": b"c\n"}, work, "next head")
    newer = git("rev-parse", "HEAD", cwd=work)
    assert fetch_commits(str(remote), base, newer, dest, token=None) == base  # fetched
    shutil.rmtree(remote)
    with pytest.raises(RubricateError):  # a commit it lacks is fetched, and that fails
        fetch_commits(str(remote), base, "f" * 40, dest, token=None)
