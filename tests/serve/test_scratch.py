"""The worker's scratch folders: one job at a time, kept per repository, dropped when a job
fails, after their reuses, and past the idle limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubricate.serve.scratch import ScratchFolders


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
