"""Read a repository's objects through one long-lived `git cat-file --batch` process (shell).

A reader answers one object at a time (a ref, a commit, a tree or a blob, by any name git
accepts); a tree comes back as its entries. Starting one process and asking it many questions
costs less than a process per question.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO

from rubricate.gitio.run import GitError, start_git

TreeEntries = dict[str, tuple[str, str]]
"""A tree's entries: name → (mode, object id)."""


class ObjectReader:
    """One `git cat-file --batch` process over a repository, until `close`."""

    def __init__(self, gitdir: Path, env: dict[str, str]) -> None:
        self._proc = start_git(["cat-file", "--batch"], gitdir, env=env)

    def read(self, name: str) -> tuple[str, str, bytes] | None:
        """The object's id, type and content; None when the repository does not hold it."""
        stdin, stdout = self._pipes()
        stdin.write(name.encode("utf-8", "surrogateescape") + b"\n")
        stdin.flush()
        header = stdout.readline()
        if not header:
            raise GitError(["cat-file", "--batch"], -1, "the object reader stopped")
        if header.endswith((b" missing\n", b" ambiguous\n")):
            return None
        oid, kind, size = header.decode().split()
        data = stdout.read(int(size) + 1)
        return oid, kind, data[:-1]

    def tree(self, name: str) -> TreeEntries:
        """The entries of a tree (by id, or a name like `<commit>^{tree}`); empty when absent."""
        found = self.read(name)
        if found is None or found[1] != "tree":
            return {}
        return parse_tree(found[2])

    def close(self) -> None:
        """End the process."""
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        if self._proc.stdout is not None:
            self._proc.stdout.close()
        self._proc.wait()

    def _pipes(self) -> tuple[IO[bytes], IO[bytes]]:
        if self._proc.stdin is None or self._proc.stdout is None:
            raise GitError(["cat-file", "--batch"], -1, "the object reader is closed")
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
