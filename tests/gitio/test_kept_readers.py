"""A repository inside a kept folder is read through its running `cat-file` processes: the same
answers as one git process per question, objects fetched later found, and the processes ended
with the folder."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rubricate.gitio import read, refs
from rubricate.gitio.kept import drop_readers, keep_readers, kept
from rubricate.gitio.read import read_snapshot
from rubricate.gitio.refs import batch_check, batch_read, resolve_commit, tree_ids
from rubricate.gitio.run import run_git
from rubricate.gitio.workspace import fetch_commits
from tests.ledger.gitutil import bare_remote, commit_files, git


@pytest.fixture
def commits(tmp_path: Path) -> tuple[Path, str, str]:
    """A remote with a base and a head commit (a changed file, an added one)."""
    remote = bare_remote(tmp_path)
    work = tmp_path / "work"
    commit_files(remote, {"a.txt": b"a\n", "s/schema.json": b"{}\n"}, work, "base")
    base = git("rev-parse", "HEAD", cwd=work)
    commit_files(remote, {"a.txt": b"a2\n", "b with space.txt": b"b\n"}, work, "head")
    return remote, base, git("rev-parse", "HEAD", cwd=work)


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    kept_folder = tmp_path / "scratch"
    kept_folder.mkdir()
    keep_readers(kept_folder)
    try:
        yield kept_folder
    finally:
        drop_readers(kept_folder)


def no_git(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("git ran")


def test_a_kept_repository_answers_without_a_git_process_per_question(
    commits: tuple[Path, str, str], folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    remote, base, head = commits
    plain, repo = tmp_path / "plain.git", folder / "repo.git"
    fetch_commits(str(remote), base, head, plain, token=None)
    fetch_commits(str(remote), base, head, repo, token=None)
    specs = [f"{base}:s/schema.json", f"{head}:b with space.txt", f"{head}:absent"]
    expected = batch_check(plain, specs)
    shas = [sha for sha, _, _ in expected.values()]
    blobs = batch_read(plain, shas)
    snapshot = read_snapshot(plain, base, head)
    trees = tree_ids(plain, base, head)
    monkeypatch.setattr(refs, "run_git", no_git)
    monkeypatch.setattr(refs, "git_text", no_git)
    assert resolve_commit(repo, head) == head
    assert batch_check(repo, specs) == expected
    assert len(expected) == 2
    assert batch_read(repo, shas) == blobs
    assert tree_ids(repo, base, head) == trees
    ran: list[str] = []

    def counted(args: list[str], *rest: Any, **kwargs: Any) -> Any:
        ran.append(next(a for a in args if not a.startswith("-") and "=" not in a))
        return run_git(args, *rest, **kwargs)

    monkeypatch.setattr(read, "run_git", counted)
    found = read_snapshot(repo, base, head)
    assert found == dataclasses.replace(snapshot, repo=str(repo.resolve()))
    assert ran == ["diff", "ls-tree"]  # the rest asked of the readers


def test_a_name_the_readers_do_not_know_is_asked_of_git(
    commits: tuple[Path, str, str], folder: Path
) -> None:
    remote, base, head = commits
    repo = folder / "repo.git"
    fetch_commits(str(remote), base, head, repo, token=None)
    with pytest.raises(Exception, match="names no commit"):
        resolve_commit(repo, "f" * 40)
    assert kept(folder.parent / "elsewhere.git") is None
    assert kept(folder / "not-yet.git") is None  # no repository there (yet)


def test_objects_fetched_after_the_readers_started_are_found(
    commits: tuple[Path, str, str], folder: Path, tmp_path: Path
) -> None:
    remote, base, head = commits
    repo = folder / "repo.git"
    fetch_commits(str(remote), base, head, repo, token=None)
    assert resolve_commit(repo, head) == head  # the readers run
    commit_files(remote, {"c.txt": b"c\n"}, tmp_path / "work", "next head")
    newer = git("rev-parse", "HEAD", cwd=tmp_path / "work")
    fetch_commits(str(remote), base, newer, repo, token=None)
    assert resolve_commit(repo, newer) == newer
    [(sha, kind, size)] = batch_check(repo, [f"{newer}:c.txt"]).values()
    assert (kind, size) == ("blob", 2)
    assert batch_read(repo, [sha]) == {sha: b"c\n"}


def test_dropping_the_folder_ends_its_readers(
    commits: tuple[Path, str, str], tmp_path: Path
) -> None:
    remote, base, head = commits
    folder = tmp_path / "scratch"
    folder.mkdir()
    keep_readers(folder)
    repo = folder / "repo.git"
    fetch_commits(str(remote), base, head, repo, token=None)
    objects = kept(repo)
    assert objects is not None
    objects.info(head)
    objects.read(head)
    processes = [r._proc for r in (objects._check, objects._read) if r is not None]
    assert len(processes) == 2
    assert all(p.poll() is None for p in processes)
    drop_readers(folder)
    assert all(p.poll() is not None for p in processes)
    assert kept(repo) is None
