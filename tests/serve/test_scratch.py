"""The worker's scratch folders: one job at a time, kept per repository, dropped when a job
fails, after their reuses, and past the idle limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubricate.gitio.kept import KeptObjects, kept
from rubricate.serve.scratch import ScratchFolders
from tests.ledger.gitutil import git


def test_a_repository_gets_its_last_folder_back_and_another_gets_its_own() -> None:
    folders = ScratchFolders()
    with folders.borrow("o/a") as first:
        (first / "repo.git").mkdir()
        with folders.borrow("o/a") as second:  # a second job of o/a meanwhile
            assert second != first
    with folders.borrow("o/a") as again:
        assert again in (first, second)
    with folders.borrow("o/a") as again:
        assert (again / "repo.git").exists()
    with folders.borrow("o/b") as other:
        assert other not in (first, second)
        assert not any(other.iterdir())


def test_a_failed_job_drops_its_folder() -> None:
    folders = ScratchFolders()
    used: list[Path] = []

    def job() -> None:
        with folders.borrow("o/a") as folder:
            used.append(folder)
            (folder / "repo.git").mkdir()
            raise RuntimeError("killed git")

    with pytest.raises(RuntimeError):
        job()
    assert not used[0].exists()
    assert folders.idle() == {}


def test_a_folder_is_dropped_after_its_reuses_and_the_oldest_idle_past_the_limit() -> None:
    folders = ScratchFolders(keep=2, reuses=3)
    used = []
    for _ in range(3):
        with folders.borrow("o/a") as folder:
            used.append(folder)
    assert used == [used[0]] * 3
    assert not used[0].exists()
    for repo in ("o/b", "o/c", "o/d"):
        with folders.borrow(repo):
            pass
    assert sorted(folders.idle().values()) == ["o/c", "o/d"]


def test_a_kept_folders_repository_is_read_by_readers_that_end_with_the_folder() -> None:
    folders = ScratchFolders(keep=1)
    with folders.borrow("o/a") as folder:
        git("init", "--bare", "--quiet", str(folder / "repo.git"))
        objects = kept(folder / "repo.git")
        assert objects is not None
        assert objects.info("HEAD") is None  # no commit yet; the reader runs
        [reader] = [r for r in (objects._check, objects._read) if r is not None]
    assert kept(folder / "repo.git") is objects  # kept between jobs
    with folders.borrow("o/b"):  # past the idle limit: o/a's folder goes
        pass
    assert reader._proc.poll() is not None
    assert kept(folder / "repo.git") is None

    def job() -> None:
        with folders.borrow("o/b") as failed:
            git("init", "--bare", "--quiet", str(failed / "repo.git"))
            objects = kept(failed / "repo.git")
            assert objects is not None
            objects.info("HEAD")
            used.append(objects)
            raise RuntimeError("killed git")

    used: list[KeptObjects] = []
    with pytest.raises(RuntimeError):
        job()
    assert used[0]._check is None  # ended with the dropped folder
