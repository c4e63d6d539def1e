"""Object readers kept running for the repositories of kept folders (shell: runs git).

A worker keeps each repository it fetched a PR's commits into between jobs
(`rubricate.serve.scratch`); reading a commit, a tree id or a few blobs there with one `git`
process per question costs a process start each time. For a repository directly inside a
folder given to `keep_readers`, `kept(repo)` starts two `git cat-file` processes (`--batch-check`
and `--batch`) at the first question and keeps them until `drop_readers(folder)`, so a job asks
them instead (`rubricate.gitio.refs`). Objects fetched later are found too: git looks for new
packs when an object is missing. Only object names are asked this way, never refs, which a
running reader may not see change. Elsewhere (the Action, the CLI) nothing is kept.
"""

from __future__ import annotations

import threading
from pathlib import Path

from rubricate.gitio.objects import ObjectReader


class KeptObjects:
    """A kept repository's two readers, started on first use; one job asks at a time."""

    def __init__(self, gitdir: Path) -> None:
        self.gitdir = gitdir
        self._check: ObjectReader | None = None
        self._read: ObjectReader | None = None
        self.lock = threading.Lock()

    def info(self, name: str) -> tuple[str, str, int] | None:
        """The object's id, type and size; None when the repository does not hold it."""
        with self.lock:
            if self._check is None:
                self._check = ObjectReader(self.gitdir, contents=False)
            return self._check.info(name)

    def read(self, name: str) -> tuple[str, str, bytes] | None:
        """The object's id, type and content; None when the repository does not hold it."""
        with self.lock:
            if self._read is None:
                self._read = ObjectReader(self.gitdir)
            return self._read.read(name)

    def close(self) -> None:
        """End both processes."""
        with self.lock:
            for reader in (self._check, self._read):
                if reader is not None:
                    reader.close()
            self._check = self._read = None


_folders: dict[Path, dict[Path, KeptObjects]] = {}
"""Each kept folder -> its repositories' readers."""
_lock = threading.Lock()


def keep_readers(folder: Path) -> None:
    """Keep readers for the repositories directly inside `folder` until `drop_readers`."""
    with _lock:
        _folders.setdefault(folder.resolve(), {})


def drop_readers(folder: Path) -> None:
    """End the readers of `folder`'s repositories and keep no more there."""
    with _lock:
        readers = _folders.pop(folder.resolve(), {})
    for reader in readers.values():
        reader.close()


def kept(repo: str | Path) -> KeptObjects | None:
    """The kept readers of `repo`, when it is a repository directly inside a kept folder."""
    if not _folders:
        return None
    path = Path(repo).resolve()
    with _lock:
        readers = _folders.get(path.parent)
        if readers is None or not (path / "HEAD").is_file():
            return None
        found = readers.get(path)
        if found is None:
            found = readers[path] = KeptObjects(path)
        return found
