"""The worker's scratch folders, one per job at a time, kept per repository between jobs
(shell: files).

A job's folder holds its event file and the bare repository the PR's commits are fetched into;
handing the same repository's next job the same folder keeps the objects already fetched, so a
job whose commits are there fetches nothing. A folder is given to one job at a time, dropped
when its job fails (a killed git may have left it half written) and after `REUSES` jobs (its
repository only grows), and at most `KEEP` idle folders are kept, the least recently used
dropped first. A kept folder's repository is read through `git cat-file` processes that live as
long as the folder (`rubricate.gitio.kept`). Everything lives under one private temporary
folder of the process, removed when the process ends normally.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import count
from pathlib import Path

from rubricate.gitio.kept import drop_readers, keep_readers

KEEP = 32
"""Idle folders kept, over all repositories."""
REUSES = 200
"""Jobs a folder serves before it is dropped."""


class ScratchFolders:
    """A process's scratch folders, by repository."""

    def __init__(self, keep: int = KEEP, reuses: int = REUSES) -> None:
        self.keep = keep
        self.reuses = reuses
        self._root: Path | None = None
        self._idle: OrderedDict[Path, tuple[str, int]] = OrderedDict()
        self._numbers = count()
        self._lock = threading.Lock()

    @contextmanager
    def borrow(self, repo: str) -> Iterator[Path]:
        """A folder for one job of `repo`: the last one of its jobs left, else a new one."""
        folder, uses = self._take(repo)
        try:
            yield folder
        except BaseException:
            _drop(folder)
            raise
        self._give_back(folder, repo, uses + 1)

    def _take(self, repo: str) -> tuple[Path, int]:
        with self._lock:
            for folder, (owner, uses) in reversed(self._idle.items()):
                if owner == repo:
                    del self._idle[folder]
                    return folder, uses
            if self._root is None:
                self._root = Path(tempfile.mkdtemp(prefix="rubricate-worker-"))
                atexit.register(shutil.rmtree, self._root, True)
            folder = self._root / str(next(self._numbers))
        folder.mkdir()
        keep_readers(folder)
        return folder, 0

    def _give_back(self, folder: Path, repo: str, uses: int) -> None:
        dropped = [folder] if uses >= self.reuses else []
        with self._lock:
            if not dropped:
                self._idle[folder] = (repo, uses)
            while len(self._idle) > self.keep:
                dropped.append(self._idle.popitem(last=False)[0])
        for each in dropped:
            _drop(each)

    def idle(self) -> dict[Path, str]:
        """The idle folders and their repositories."""
        with self._lock:
            return {folder: repo for folder, (repo, _) in self._idle.items()}


def _drop(folder: Path) -> None:
    """End the folder's object readers, then remove it."""
    drop_readers(folder)
    shutil.rmtree(folder, ignore_errors=True)
