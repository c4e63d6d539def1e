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
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, suppress
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from rubricate.errors import ConfigError, DataBranchError
from rubricate.gitio.history import HistoryCommit, branch_history
from rubricate.gitio.run import GitError
from rubricate.gitio.workspace import BOT_EMAIL, BOT_NAME, GitWorkspace
from rubricate.ledger.paths import git_blob_id
from rubricate.ledger.store import AppendResult, Check, LedgerStore, RetryPolicy, Tip, Writer
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

        def fetch(paths: Sequence[str]) -> None:
            with self._errors():
                ws.fetch_blobs(tree.blob(p) for p in paths)

        return Tip(commit, tree, read, fetch)

    def write(
        self, tip: Tip, changes: Mapping[str, bytes], deletions: Sequence[str], message: str
    ) -> tuple[bool, str | None]:
        """Commit on the tip and push without force; False when the push is rejected."""
        return write_all(self.writer(tip, message), changes, deletions)

    def writer(self, tip: Tip, message: str) -> BranchWriter:
        """A commit on the tip whose files are streamed to git as they are given."""
        return BranchWriter(self._ws(), tip, message, self._errors)

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


class BranchWriter:
    """A commit on a fetched tip, its files sent to `git fast-import` as they are given (none
    held), checked, then pushed without force; nothing reaches the branch before the push."""

    def __init__(
        self,
        ws: GitWorkspace,
        tip: Tip,
        message: str,
        errors: Callable[[], AbstractContextManager[None]],
    ) -> None:
        self._ws = ws
        self._tip = tip
        self._message = message
        self._errors = errors
        self._stream = ws.stream(tip.id, message)

    def put(self, path: str, data: bytes) -> None:
        """Write one file."""
        with self._errors():
            self._stream.put(path, data)

    def delete(self, path: str) -> None:
        """Delete one file."""
        with self._errors():
            self._stream.delete(path)

    def reset(self) -> None:
        """Forget every change given so far."""
        self._stream.abort()
        self._stream = self._ws.stream(self._tip.id, self._message)

    def abort(self) -> None:
        """Commit nothing."""
        self._stream.abort()

    def finish(self, check: Check | None = None) -> tuple[bool, str | None]:
        """Make the commit, give its files (listed on demand) to `check`, then push: whether the
        push landed (False: the branch moved), and the commit."""
        with self._errors():
            commit = self._stream.finish()
            if check is not None:
                check(GitTree(self._ws, commit, self._errors))
            return self._ws.push(commit, self._tip.id), commit


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
        return write_all(self.writer(tip, message), changes, deletions)

    def writer(self, tip: Tip, message: str) -> DirectoryWriter:
        """A write whose files are staged beside their targets as they are given."""
        return DirectoryWriter(self.root, tip)

    def close(self) -> None:
        """Nothing to release: the directory is the user's."""


class DirectoryWriter:
    """Files written beside their targets as they are given (none held), then moved in all at
    once by `finish`; a write that stops before leaves the targets as they were."""

    def __init__(self, root: Path, tip: Tip) -> None:
        self._root = root
        self._tip = tip
        self._staged: dict[str, None] = {}
        """The paths staged (a text each: a fix may stage every job's file)."""
        self._deletions: list[str] = []
        self._made: list[Path] = []

    def put(self, path: str, data: bytes) -> None:
        """Stage one file beside its target."""
        target = self._root / path
        temp = _staging(target)
        try:
            self._make_parents(target.parent)
            temp.write_bytes(data)
        except OSError as exc:
            self.abort()
            blocked = isinstance(exc, (FileExistsError, NotADirectoryError))
            why = "a file stands where its directory should be" if blocked else exc.strerror
            raise ConfigError(
                f"{self._root}: cannot write {path}: {why}; nothing was written"
            ) from None
        self._staged[path] = None

    def delete(self, path: str) -> None:
        """Delete one file when the write finishes."""
        self._deletions.append(path)

    def reset(self) -> None:
        """Forget every change given so far."""
        self.abort()

    def abort(self) -> None:
        """Remove the staged files and the directories made for them: nothing is written."""
        for path in self._staged:
            _staging(self._root / path).unlink(missing_ok=True)
        for made in reversed(self._made):
            with suppress(OSError):
                made.rmdir()
        self._staged.clear()
        self._deletions.clear()
        self._made.clear()

    def _make_parents(self, directory: Path) -> None:
        """Make `directory` and its missing parents, remembering each one made."""
        missing = [d for d in (directory, *directory.parents) if not d.exists()]
        for made in reversed(missing):
            made.mkdir()
            self._made.append(made)

    def finish(self, check: Check | None = None) -> tuple[bool, str | None]:
        """Move the staged files in and delete the others, then give the directory's files (the
        tip's, with the written ones read back) to `check`."""
        for path in self._staged:
            _staging(self._root / path).replace(self._root / path)
        for path in self._deletions:
            (self._root / path).unlink(missing_ok=True)
        if check is None:
            return True, None
        written = dict(self._tip.tree)
        for path in self._deletions:
            written.pop(path, None)
        for path in self._staged:
            written[path] = git_blob_id((self._root / path).read_bytes())
        check(written)
        return True, None


def _staging(target: Path) -> Path:
    """Where a file is staged beside its target."""
    return target.with_name(f".{target.name}.rubricate-new")


def write_all(
    writer: Writer, changes: Mapping[str, bytes], deletions: Sequence[str]
) -> tuple[bool, str | None]:
    """Write these changes with `writer`: whether they landed, and the commit if any."""
    try:
        for path in sorted(deletions):
            writer.delete(path)
        for path in sorted(changes):
            writer.put(path, changes[path])
        return writer.finish()
    except BaseException:
        writer.abort()
        raise


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
        """Sign the unsigned events whose lines rubricate's own commits wrote (see
        `LedgerStore.resign`): in each shard, a line as many times as the bot's commits on the
        branch's own history added it there (`bot_written`); a line that another commit added or
        edited, and a copy beyond the bot's own, stays unsigned. Also how many such lines there
        are.

        The lines to sign are decided on the first tip a write is planned on, from that tip's
        history; on every later attempt (the branch moved) the new tip's history is read again
        and only lines still written by rubricate, among those decided on, are signed."""
        decided: Counter[tuple[str, str]] | None = None

        def allowed(tip: str | None) -> Callable[[str, str], bool]:
            nonlocal decided
            mine = bot_written(self.history(tip), IDENTITY) if tip is not None else Counter()
            decided = mine if decided is None else decided & mine
            left = Counter(decided)

            def keep(path: str, line: str) -> bool:
                if left[(path, line)] <= 0:
                    return False
                left[(path, line)] -= 1
                return True

            return keep

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
