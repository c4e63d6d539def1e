"""The ledger on a git data branch, written by compare-and-swap (shell: runs git).

An append fetches the tip, skips events whose id is already there, appends the rest, regenerates
the derived files, commits with the bot identity and pushes without force. A rejected push starts
over from the new tip after a jittered exponential backoff, at most `RetryPolicy.attempts` times.
Extra files given as functions of their content are recomputed from each new tip. A rebuild
regenerates every derived file from the whole ledger by the same compare-and-swap.
"""

from __future__ import annotations

import random
import shutil
import tempfile
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType

from rubricate.config import ReputationConfig
from rubricate.errors import RubricateError
from rubricate.gitio.run import GitError
from rubricate.gitio.workspace import GitWorkspace
from rubricate.ledger.codec import ParsedLedger, decode_shard, git_blob_id, is_shard, parse_ledger
from rubricate.ledger.derive import job_paths
from rubricate.ledger.event import Event
from rubricate.ledger.plan import AppendPlan, Reader, plan_append, plan_rebuild, prepare
from rubricate.ledger.store_common import (
    AppendResult,
    Extra,
    callable_paths,
    check_extras,
    commit_message,
    job_file_events,
    resolve_extras,
)


class DataBranchError(RubricateError):
    """The data branch could not be read or written; the run failed."""

    exit_code = 1


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a rejected push is retried."""

    attempts: int = 8
    base_delay: float = 0.5
    max_delay: float = 10.0
    sleep: Callable[[float], None] = time.sleep
    jitter: Callable[[], float] = field(default=random.random)

    def delay(self, attempt: int) -> float:
        """The pause after failed attempt number `attempt` (1-based): exponential, jittered."""
        return min(self.max_delay, self.base_delay * 2.0 ** (attempt - 1)) * (0.5 + self.jitter())


class DataBranchStore:
    """The ledger and its derived files on one branch of one git remote (URL or local path)."""

    def __init__(
        self,
        remote: str,
        branch: str = "rubricate-data",
        *,
        token: str | None = None,
        workdir: str | None = None,
        config: ReputationConfig | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.remote = remote
        self.branch = branch
        self.config = config
        self.retry = retry or RetryPolicy()
        self._token = token
        self._workdir = workdir
        self._cleanup: Callable[[], object] | None = None
        self._git: GitWorkspace | None = None
        self.branch_found: bool | None = None
        """Whether the branch existed at the last read (None before any read)."""

    def __enter__(self) -> DataBranchStore:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Remove the private temporary repository, if one was made."""
        if self._cleanup is not None:
            self._cleanup()
        self._cleanup = None
        self._git = None

    def append(
        self, events: Iterable[Event], extras: Mapping[str, Extra] | None = None
    ) -> AppendResult:
        """Append the events not yet present (and write `extras`) in one commit, racing safely.

        No commit is made when every event is already present and no extra file changes.
        """
        given = list(events)
        batch = prepare(given)
        extra_files = check_extras(extras or {})
        result = self._swap(
            lambda tree, read: plan_append(tree, read, batch, self.config), extra_files, False
        )
        return replace(result, present=len(given) - result.added)

    def write_extra(self, path: str, data: Extra) -> AppendResult:
        """Write one non-derived file (e.g. `views/12.json`) by the same compare-and-swap.

        `data` is the new content, or a function from the content at the tip (None when
        absent) to the new content (None to leave it), called again after a rejected push.
        """
        return self.append([], {path: data})

    def rebuild(self) -> AppendResult:
        """Regenerate every derived file from the whole ledger; commit only if one changes."""
        return self._swap(lambda tree, read: plan_rebuild(tree, read, self.config), {}, True)

    def _swap(
        self,
        planner: Callable[[Mapping[str, str], Reader], AppendPlan],
        extras: Mapping[str, Extra],
        rebuild: bool,
    ) -> AppendResult:
        """Plan on the tip, commit and push; from the new tip again when the push is rejected."""
        with self._errors():
            for attempt in range(1, self.retry.attempts + 1):
                tip = self._ws().fetch_tip()
                tree = self._ws().tree(tip)
                read = self._reader(tree)
                plan = planner(tree, read)
                current = read([p for p in callable_paths(extras) if p in tree])
                extra_files = resolve_extras(extras, current)
                changes = _changed({**plan.files, **extra_files}, tree)
                deletions = [p for p in plan.deletions if p in tree]
                derived = rebuild and bool(changes or deletions)
                if not (plan.added or derived or any(p in changes for p in extra_files)):
                    return AppendResult(0, plan.present, None, attempt)
                message = commit_message(len(plan.added), sorted(extra_files), rebuilt=rebuild)
                commit = self._ws().commit(tip, changes, deletions, message)
                if self._ws().push(commit):
                    return AppendResult(len(plan.added), plan.present, commit, attempt)
                if attempt < self.retry.attempts:
                    self.retry.sleep(self.retry.delay(attempt))
        raise DataBranchError(
            f"the branch {self.branch!r} kept moving: gave up after {self.retry.attempts} attempts"
        )

    def read(self) -> ParsedLedger:
        """Every event and located problem of the ledger at the tip."""
        files = self.read_files(is_shard)
        return parse_ledger({p: decode_shard(d) for p, d in files.items()})

    def read_file(self, path: str) -> bytes | None:
        """One file of the tip, or None when it (or the branch) is absent."""
        return self.read_files(lambda p: p == path).get(path)

    def read_files(self, wanted: Callable[[str], bool]) -> dict[str, bytes]:
        """The tip's files whose path `wanted` accepts."""
        with self._errors():
            tip = self._ws().fetch_tip()
            self.branch_found = tip is not None
            tree = self._ws().tree(tip)
            paths = [p for p in tree if wanted(p)]
            blobs = self._ws().read_blobs(tree[p] for p in paths)
        return {p: blobs[tree[p]] for p in paths}

    def read_job(self, repo: str, pr: int) -> tuple[Event, ...]:
        """One job's events from its job file (fast: the ledger is not folded)."""
        paths = job_paths(repo, pr)
        return job_file_events(self.read_files(lambda p: p in paths), repo, pr)

    def _reader(self, tree: Mapping[str, str]) -> Reader:
        def read(paths: Sequence[str]) -> dict[str, bytes]:
            blobs = self._ws().read_blobs(tree[p] for p in paths)
            return {p: blobs[tree[p]] for p in paths}

        return read

    def _ws(self) -> GitWorkspace:
        if self._git is None:
            gitdir = self._workdir
            if gitdir is None:
                gitdir = tempfile.mkdtemp(prefix="rubricate-data-")
                self._cleanup = weakref.finalize(self, _remove_tree, gitdir)
            self._git = GitWorkspace(Path(gitdir), self.remote, self.branch, self._token)
        return self._git

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except GitError as exc:
            raise DataBranchError(f"data branch {self.branch!r}: {exc}") from None


def _remove_tree(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)


def _changed(files: Mapping[str, bytes], tree: Mapping[str, str]) -> dict[str, bytes]:
    return {p: d for p, d in files.items() if tree.get(p) != git_blob_id(d)}
