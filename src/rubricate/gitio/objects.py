"""Read a repository's objects through one long-lived `git cat-file --batch` process (shell).

A reader answers one object at a time (a ref, a commit, a tree or a blob, by any name git
accepts); a tree comes back as its entries. Starting one process and asking it many questions
costs less than a process per question.
"""

from __future__ import annotations

import contextlib
import subprocess
from pathlib import Path
from typing import IO

from rubricate.gitio.run import GitError, start_git

TreeEntries = dict[str, tuple[str, str]]
"""A tree's entries: name → (mode, object id)."""


class ObjectReader:
    """One `git cat-file --batch` process over a repository, until `close`; with
    `contents=False`, a `--batch-check` one that tells only each object's id, type and size."""

    def __init__(
        self, gitdir: Path, env: dict[str, str] | None = None, *, contents: bool = True
    ) -> None:
        self._mode = "--batch" if contents else "--batch-check"
        self._proc = start_git(["cat-file", self._mode], gitdir, env=env)

    def info(self, name: str) -> tuple[str, str, int] | None:
        """The object's id, type and size (of a `contents=False` reader: a `--batch` one would
        leave the content in its pipe); None when the repository does not hold it."""
        if self._mode != "--batch-check":
            raise ValueError("info() is for a contents=False reader; use read()")
        return self._header(name)

    def _header(self, name: str) -> tuple[str, str, int] | None:
        stdin, stdout = self._pipes()
        stdin.write(name.encode("utf-8", "surrogateescape") + b"\n")
        stdin.flush()
        header = stdout.readline()
        if not header:
            raise GitError(["cat-file", self._mode], -1, "the object reader stopped")
        if header.endswith((b" missing\n", b" ambiguous\n")):
            return None
        oid, kind, size = header.decode().split()
        return oid, kind, int(size)

    def read(self, name: str) -> tuple[str, str, bytes] | None:
        """The object's id, type and content; None when the repository does not hold it."""
        found = self._header(name)
        if found is None:
            return None
        oid, kind, size = found
        data = self._pipes()[1].read(size + 1)
        return oid, kind, data[:-1]

    def tree(self, name: str) -> TreeEntries:
        """The entries of a tree (by id, or a name like `<commit>^{tree}`); empty when absent."""
        found = self.read(name)
        if found is None or found[1] != "tree":
            return {}
        return parse_tree(found[2])

    def close(self) -> None:
        """End the process (killed when it does not end on its own)."""
        for pipe in (self._proc.stdin, self._proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()

    def _pipes(self) -> tuple[IO[bytes], IO[bytes]]:
        if self._proc.stdin is None or self._proc.stdout is None:
            raise GitError(["cat-file", self._mode], -1, "the object reader is closed")
        return self._proc.stdin, self._proc.stdout


def parse_tree(data: bytes) -> TreeEntries:
    """The entries of a raw tree object."""
    entries: TreeEntries = {}
    position = 0
    while position < len(data):
        space = data.index(b" ", position)
        nul = data.index(b"\0", space)
        mode = data[position:space].decode()
        name = data[space + 1 : nul].decode("utf-8", "surrogateescape")
        entries[name] = (mode, data[nul + 1 : nul + 21].hex())
        position = nul + 21
    return entries
