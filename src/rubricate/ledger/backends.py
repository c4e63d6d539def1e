"""The store's two backends: a branch of a git remote, and a plain directory (shell).

`DataBranchStore` keeps a private bare repository that talks to one branch of one remote (URL or
local path) and writes by compare-and-swap: commit on the fetched tip, push without force.
`DirectoryStore` reads and writes a directory (e.g. a checkout of the data branch; `.git` is
ignored), for offline inspection and appending without git.
"""

from __future__ import annotations

import shutil
import tempfile
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from rubricate.errors import ConfigError
from rubricate.gitio.history import HistoryCommit, branch_history
from rubricate.gitio.run import GitError
from rubricate.gitio.workspace import BOT_EMAIL, BOT_NAME, GitWorkspace
from rubricate.ledger.paths import git_blob_id
from rubricate.ledger.store import AppendResult, DataBranchError, LedgerStore, RetryPolicy, Tip
from rubricate.ledger.treeids import TREE_MODE, Entry, file_entry, file_value
from rubricate.ledger.verify import ForeignCommit, bot_written, foreign_commits

IDENTITY = f"{BOT_NAME} <{BOT_EMAIL}>"
"""The author and committer of every commit rubricate makes."""

if TYPE_CHECKING:
    from rubricate.ledger.reputation_config import ReputationConfig


class GitBackend:
    """One branch of one git remote, through a private bare repository."""

    def __init__(self, remote: str, branch: str, token: str | None, workdir: str | None) -> None:
        self.remote = remote
        self.branch = branch
        self.where = f"the branch {branch!r}"
        self.found: bool | None = None
        self._token = token
        self._workdir = workdir
        self._cleanup: Callable[[], object] | None = None
        self._git: GitWorkspace | None = None

    def read_files(self, wanted: Callable[[str], bool]) -> dict[str, bytes]:
        """The tip's files whose path `wanted` accepts."""
        tip = self.tip()
        return dict(tip.read([p for p in tip.tree if wanted(p)]))

    def tip(self) -> Tip:
        """The fetched tip; its tree is listed one directory at a time, as the plan asks, and
        blobs are read on demand."""
        with self._errors():
            ws = self._ws()
            commit = ws.fetch_tip()
            self.found = commit is not None
            tree = GitTree(ws, commit, self._errors)

        def read(paths: Sequence[str]) -> dict[str, bytes]:
            with self._errors():
                blobs = ws.read_blobs(tree.blob(p) for p in paths)
            return {p: blobs[tree.blob(p)] for p in paths}

        return Tip(commit, tree, read)

    def write(
        self, tip: Tip, changes: Mapping[str, bytes], deletions: Sequence[str], message: str
    ) -> tuple[bool, str | None]:
        """Commit on the tip and push without force; False when the push is rejected."""
        with self._errors():
            commit = self._ws().commit(tip.id, changes, deletions, message)
            return self._ws().push(commit), commit

    def history(self, at: str | None = None) -> list[HistoryCommit]:
        """Every commit of the branch (up to the commit `at`, else its tip) with the ledger lines
        it added (fetched in full)."""
        with self._errors():
            ws = self._ws()
            return branch_history(ws.url, self.branch, ws.env, ws.gitdir / "history", "ledger/", at)

    def close(self) -> None:
        """Remove the private temporary repository, if one was made."""
        if self._git is not None:
            self._git.close()
        if self._cleanup is not None:
            self._cleanup()
        self._cleanup = None
        self._git = None

    def _ws(self) -> GitWorkspace:
        if self._git is None:
            gitdir = self._workdir
            if gitdir is None:
                gitdir = tempfile.mkdtemp(prefix="rubricate-data-")
                self._cleanup = weakref.finalize(self, shutil.rmtree, gitdir, ignore_errors=True)
            self._git = GitWorkspace(Path(gitdir), self.remote, self.branch, self._token)
        return self._git

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except GitError as exc:
            raise DataBranchError(f"data branch {self.branch!r}: {exc}") from None


class GitTree(Mapping[str, str]):
    """A commit's files as path → blob id (`<blob id>:<mode>` for a mode other than `100644`),
    read one directory at a time through the workspace's object reader; listed in full only
    when iterated."""

    def __init__(
        self,
        ws: GitWorkspace,
        commit: str | None,
        errors: Callable[[], AbstractContextManager[None]],
    ) -> None:
        self._ws = ws
        self._commit = commit
        self._errors = errors
        self._dirs: dict[str, Mapping[str, Entry]] = {}
        self._all: dict[str, str] | None = None

    def entries(self, directory: str) -> Mapping[str, Entry]:
        """The entries of `directory` (`""` for the root); empty when it does not exist."""
        if directory not in self._dirs:
            if self._commit is None:
                found: Mapping[str, Entry] = {}
            elif not directory:
                with self._errors():
                    found = self._ws.entries(f"{self._commit}^{{tree}}")
            else:
                parent, _, name = directory.rpartition("/")
                mode, oid = self.entries(parent).get(name, ("", ""))
                with self._errors():
                    found = self._ws.entries(oid) if mode == TREE_MODE else {}
            self._dirs[directory] = found
        return self._dirs[directory]

    def blob(self, path: str) -> str:
        """The blob id of a file."""
        return file_entry(self[path])[1]

    def __getitem__(self, path: str) -> str:
        parent, _, name = path.rpartition("/")
        mode, oid = self.entries(parent).get(name, (TREE_MODE, ""))
        if mode == TREE_MODE:
            raise KeyError(path)
        return file_value(mode, oid)

    def __iter__(self) -> Iterator[str]:
        return iter(self._files())

    def __len__(self) -> int:
        return len(self._files())

    def _files(self) -> dict[str, str]:
        if self._all is None:
            with self._errors():
                listed = self._ws.tree(self._commit)
            self._all = {p: file_value(mode, oid) for p, (mode, oid) in listed.items()}
        return self._all


class DirectoryBackend:
    """A directory of files; `.git` is ignored; writes are all or nothing, never raced."""

    found: bool | None = None

    def __init__(self, path: str) -> None:
        self.root = Path(path)
        self.where = str(self.root)
        if not self.root.is_dir():
            raise ConfigError(f"{path}: not a directory")

    def read_files(self, wanted: Callable[[str], bool]) -> dict[str, bytes]:
        """Every file whose relative path `wanted` accepts."""
        return {p: self._read(p) for p in self._paths() if wanted(p)}

    def tip(self) -> Tip:
        """Every file's blob id (each file read and let go in turn); contents read on demand."""
        tree = {p: git_blob_id(self._read(p)) for p in self._paths()}
        return Tip(None, tree, lambda paths: {p: self._read(p) for p in paths})

    def _paths(self) -> list[str]:
        """The relative path of every file outside `.git/`, sorted."""
        found = []
        for item in sorted(self.root.rglob("*")):
            relative = item.relative_to(self.root).as_posix()
            if item.is_file() and not relative.startswith(".git/"):
                found.append(relative)
        return found

    def _read(self, relative: str) -> bytes:
        try:
            return (self.root / relative).read_bytes()
        except OSError as exc:
            raise ConfigError(f"{self.root}: cannot read {relative}: {exc.strerror}") from None

    def write(
        self, tip: Tip, changes: Mapping[str, bytes], deletions: Sequence[str], message: str
    ) -> tuple[bool, str | None]:
        """Write every file beside its target first, then move them all in: all or nothing."""
        staged: list[tuple[Path, Path]] = []
        for path, data in changes.items():
            target = self.root / path
            temp = target.with_name(f".{target.name}.rubricate-new")
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                temp.write_bytes(data)
            except OSError as exc:
                for done, _ in staged:
                    done.unlink(missing_ok=True)
                blocked = isinstance(exc, (FileExistsError, NotADirectoryError))
                why = "a file stands where its directory should be" if blocked else exc.strerror
                raise ConfigError(
                    f"{self.root}: cannot write {path}: {why}; nothing was written"
                ) from None
            staged.append((temp, target))
        for temp, target in staged:
            temp.replace(target)
        _remove(self.root, deletions)
        return True, None

    def close(self) -> None:
        """Nothing to release: the directory is the user's."""


def _remove(root: Path, paths: Iterable[str]) -> None:
    for path in paths:
        (root / path).unlink(missing_ok=True)


class DataBranchStore(LedgerStore):
    """The ledger on one branch of one git remote (URL or local path)."""

    def __init__(
        self,
        remote: str,
        branch: str = "rubricate-data",
        *,
        token: str | None = None,
        workdir: str | None = None,
        config: ReputationConfig | None = None,
        retry: RetryPolicy | None = None,
        key: bytes | None = None,
    ) -> None:
        self.git = GitBackend(remote, branch, token, workdir)
        super().__init__(self.git, config=config, retry=retry, key=key)
        self.remote = remote
        self.branch = branch
        self._history: list[HistoryCommit] | None = None

    def foreign_commits(
        self, verified: Callable[[str], tuple[bool, str]] | None = None
    ) -> list[ForeignCommit]:
        """The branch's commits not made by rubricate's identity, with the events they added
        (and, with `verified`, what GitHub says of each one's signature)."""
        found = foreign_commits(self.history(), IDENTITY, self.key)
        return [replace(c, verified=verified(c.sha)) for c in found] if verified else found

    def resign_own(self) -> tuple[AppendResult, int, int]:
        """Sign the unsigned events whose lines only rubricate's own commits wrote (see
        `LedgerStore.resign`); a line that another commit added or edited stays unsigned. Also
        how many such lines there are.

        The lines to sign are decided on the first tip a write is planned on, from that tip's
        history; on every later attempt (the branch moved) the new tip's history is read again
        and only lines still written by rubricate alone, among those decided on, are signed."""
        decided: frozenset[str] | None = None

        def allowed(tip: str | None) -> Callable[[str], bool]:
            nonlocal decided
            mine = bot_written(self.history(tip), IDENTITY) if tip is not None else frozenset()
            decided = mine if decided is None else decided & mine
            return decided.__contains__

        return self.resign(allowed)

    def history(self, at: str | None = None) -> list[HistoryCommit]:
        """Every commit of the branch (up to the commit `at`, else the tip fetched first) with
        the ledger lines it added (the tip's fetched once, in full)."""
        if at is not None and (self._history is None or self._history[-1][0] != at):
            return self.git.history(at)
        if self._history is None:
            self._history = self.git.history()
        return self._history


class DirectoryStore(LedgerStore):
    """The ledger in a directory, e.g. a checkout of the data branch."""

    def __init__(
        self, path: str, *, config: ReputationConfig | None = None, key: bytes | None = None
    ) -> None:
        single = RetryPolicy(attempts=1)
        super().__init__(DirectoryBackend(path), config=config, retry=single, key=key)
        self.root = Path(path)
