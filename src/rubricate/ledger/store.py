"""The ledger and its derived files in one store with two backends (shell: runs git, writes files).

An append reads the tip, skips events whose id is already there, appends the rest, regenerates
the derived files and writes them in one step. The git backend (`DataBranchStore`) commits with
the bot identity and pushes without force; a rejected push starts over from the new tip after a
jittered exponential backoff, at most `RetryPolicy.attempts` times. The directory backend
(`DirectoryStore`, e.g. a checkout of the data branch) writes the files in place, all or
nothing, with no concurrency control. A fix (`verify --fix`, or a rebuild) writes, in the one
fold that verifies the ledger, each derived file that differs as the fold produces it (the
backend's `Writer` holds none), and checks the written files against the fold's ids before
they are published.

An extra file (e.g. a PR's view state under `views/`) is given either as its new content, or as
a function of its content at the tip (None when absent) that returns the new content (None to
leave it as it is). A function is called again on every attempt, after a rejected push too, so
it always builds on the newest tip and never writes a stale state over a newer one.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from types import TracebackType
from typing import TYPE_CHECKING, Protocol, TypeAlias, TypeVar

from rubricate.bulk import bulk
from rubricate.errors import DataBranchError, LedgerError
from rubricate.ledger.codec import (
    ParsedLedger,
    decode_shard,
    event_from_value,
    is_shard,
    parse_ledger,
)
from rubricate.ledger.event import Event
from rubricate.ledger.paths import git_blob_id, is_derived, job_paths
from rubricate.ledger.refold import Fetch
from rubricate.ledger.trust import resign_shard, trusted
from rubricate.ledger.verify import VerifyReport, verify_tree, written_problems

if TYPE_CHECKING:
    from rubricate.ledger.plan import AppendPlan, Reader
    from rubricate.ledger.reputation_config import ReputationConfig

Extra: TypeAlias = bytes | Callable[[bytes | None], bytes | None]
"""An extra file's new content, or a function from its content at the tip to the new content."""
Planner: TypeAlias = "Callable[[Tip], AppendPlan]"
S = TypeVar("S", bound="LedgerStore")
C = TypeVar("C", bound="Closing")
_SAFE_PATH = re.compile(r"^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$")


@dataclass(frozen=True)
class AppendResult:
    """How an append went: events added, events already present, the commit, the attempts."""

    added: int
    present: int
    commit: str | None
    attempts: int


@dataclass(frozen=True)
class Fix:
    """What `verify --fix` found, what it wrote, and the report of what is there after it."""

    found: VerifyReport
    result: AppendResult
    report: VerifyReport


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


@dataclass(frozen=True)
class Tip:
    """A backend's current state: an opaque tip id, the files as path → blob id, a reader, and
    what brings many files at once before they are read one at a time (nothing by default)."""

    id: str | None
    tree: Mapping[str, str]
    read: Reader
    fetch: Fetch = field(default=lambda paths: None)


Check: TypeAlias = Callable[[Mapping[str, str]], None]
"""Looks at the files a write gives (path → blob id) before they are published; raises to stop."""


class Writer(Protocol):
    """One write over a tip, its files given one at a time and none held (`Backend.writer`)."""

    def put(self, path: str, data: bytes) -> None:
        """Write one file."""

    def delete(self, path: str) -> None:
        """Delete one file."""

    def reset(self) -> None:
        """Forget every change given so far."""

    def abort(self) -> None:
        """Write nothing."""

    def finish(self, check: Check | None = None) -> tuple[bool, str | None]:
        """Write, `check` first seeing the files as written where the backend can (a branch:
        before its push): whether it landed (False: the tip moved), and the commit if any."""


class Backend(Protocol):
    """Where the files live: a git branch or a directory."""

    where: str
    found: bool | None

    def read_files(self, wanted: Callable[[str], bool]) -> dict[str, bytes]:
        """The current files whose path `wanted` accepts. A caller that knows its paths passes a
        set's `__contains__`: a store may then look up only those paths instead of testing each."""

    def tip(self) -> Tip:
        """The current state, to plan a write on."""

    def write(
        self, tip: Tip, changes: Mapping[str, bytes], deletions: Sequence[str], message: str
    ) -> tuple[bool, str | None]:
        """Write over `tip`: whether it landed (False: the tip moved), and the commit if any."""

    def writer(self, tip: Tip, message: str) -> Writer:
        """A write over `tip` whose files are given one at a time."""

    def close(self) -> None:
        """Release what the backend holds."""


class Closing:
    """A store used in a `with` block: closed at its end."""

    def __enter__(self: C) -> C:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Release what the store holds."""


class LedgerStore(Closing):
    """The ledger and its derived files over one backend."""

    def __init__(
        self,
        backend: Backend,
        *,
        config: ReputationConfig | None = None,
        retry: RetryPolicy | None = None,
        key: bytes | None = None,
    ) -> None:
        self.backend = backend
        self.config = config
        self.retry = retry or RetryPolicy()
        self.key = key
        """The ledger key: events are signed with it, and only signed events are trusted."""

    @property
    def branch_found(self) -> bool | None:
        """Whether the branch existed at the last read (None before any read, or no branch)."""
        return self.backend.found

    def close(self) -> None:
        """Release the backend (a private temporary repository, if one was made)."""
        self.backend.close()

    @bulk
    def append(
        self, events: Iterable[Event], extras: Mapping[str, Extra] | None = None
    ) -> AppendResult:
        """Append the events not yet present (and write `extras`) in one write, racing safely.

        Nothing is written when every event is already present and no extra file changes.
        """
        from rubricate.ledger.plan import plan_append, prepare  # only a write needs the fold

        given = list(events)
        batch = prepare(given, self.key)
        extra_files = check_extras(extras or {})
        result = self._swap(
            lambda tip: plan_append(tip.tree, tip.read, batch, self.config, self.key),
            extra_files,
            False,
        )
        return replace(result, present=len(given) - result.added)

    def write_extra(self, path: str, data: Extra) -> AppendResult:
        """Write one non-derived file (e.g. `views/12.json`) the same way.

        `data` is the new content, or a function from the content at the tip (None when
        absent) to the new content (None to leave it), called again after a rejected push.
        """
        return self.append([], {path: data})

    @bulk
    def rebuild(self) -> AppendResult:
        """Regenerate every derived file from the whole ledger; write only if one changes."""
        return self.fix().result

    @bulk
    def fix(self) -> Fix:
        """`ledger verify --fix` in one fold: each derived file that differs from the tip is
        written as the verifying fold gives it (in one commit, racing safely), and the written
        files are checked against the fold's ids instead of folding again. A branch that does
        not exist is left so."""
        message = commit_message(0, [], rebuilt=True)
        for attempt in range(1, self.retry.attempts + 1):
            tip = self.backend.tip()
            writer = self.backend.writer(tip, message)
            try:
                fixer = None if self.backend.found is False else writer
                found = verify_tree(tip.tree, tip.read, self.config, self.key, fixer, tip.fetch)
                if fixer is None or not found.fixable:
                    writer.abort()
                    return Fix(found, AppendResult(0, 0, None, attempt), found)
                for path in found.removed:
                    writer.delete(path)
                landed, commit = writer.finish(partial(self._as_folded, tip, found))
            except BaseException:
                writer.abort()
                raise
            if landed:
                fixed = replace(found, stale=(), removed=())
                return Fix(found, AppendResult(0, 0, commit, attempt), fixed)
            if attempt < self.retry.attempts:
                self.retry.sleep(self.retry.delay(attempt))
        raise self._kept_moving()

    def _as_folded(self, tip: Tip, found: VerifyReport, written: Mapping[str, str]) -> None:
        """Refuse a fix whose written files are not the tip's ledger with the fold's files."""
        problems = written_problems(tip.tree, found, written)
        if problems:
            listed = "; ".join(problems[:5]) + ("; …" if len(problems) > 5 else "")
            raise DataBranchError(f"{self.backend.where}: the fix wrote other files: {listed}")

    @bulk
    def resign(
        self, allowed: Callable[[str | None], Callable[[str, str], bool]]
    ) -> tuple[AppendResult, int, int]:
        """Sign, with the store's key, every event with a natural-key id and no valid signature
        whose line `allowed(tip)` accepts (given its shard's path and the line, in shard order,
        then line order; shard lines rewritten in place, derived files rebuilt, in one commit):
        how many were signed, and how many such events were left unsigned.

        `allowed` is asked again for every tip a write is planned on (after a rejected push too),
        so what is signed is always checked against the very state it is written over. See
        `rubricate.ledger.trust.resign_shard`."""
        from rubricate.ledger.plan import _head, branch_config, plan_full

        key, counts = self.key, [0, 0]
        if key is None:
            raise LedgerError("re-signing needs a ledger key")

        def planner(tip: Tip) -> AppendPlan:
            keep = allowed(tip.id)
            shards = tip.read([p for p in tip.tree if is_shard(p)])
            resigned = {p: resign_shard(shards[p], key, partial(keep, p)) for p in sorted(shards)}
            counts[:] = [sum(r[1] for r in resigned.values()), sum(r[2] for r in resigned.values())]
            tree, read = tip.tree, tip.read
            used = self.config or branch_config(tree, read, _head(tree, read))
            files = {p: d for p, (d, _, _) in resigned.items()}
            plan = plan_full(tree, lambda paths: {p: files[p] for p in paths}, [], used, key)
            return replace(plan, files={**plan.files, **files})

        return self._swap(planner, {}, True), counts[0], counts[1]

    def _swap(self, planner: Planner, extras: Mapping[str, Extra], rebuild: bool) -> AppendResult:
        """Plan on the tip and write; from the new tip again when the write is rejected."""
        for attempt in range(1, self.retry.attempts + 1):
            tip = self.backend.tip()
            plan = planner(tip)
            current = tip.read(
                [p for p in extras if not isinstance(extras[p], bytes) and p in tip.tree]
            )
            extra_files = resolve_extras(extras, current)
            changes = _changed({**plan.files, **extra_files}, tip.tree)
            deletions = [p for p in plan.deletions if p in tip.tree]
            derived = rebuild and bool(changes or deletions)
            if not (plan.added or derived or any(p in changes for p in extra_files)):
                return AppendResult(0, plan.present, None, attempt)
            message = commit_message(len(plan.added), sorted(extra_files), rebuilt=rebuild)
            landed, commit = self.backend.write(tip, changes, deletions, message)
            if landed:
                return AppendResult(len(plan.added), plan.present, commit, attempt)
            if attempt < self.retry.attempts:
                self.retry.sleep(self.retry.delay(attempt))
        raise self._kept_moving()

    def _kept_moving(self) -> DataBranchError:
        return DataBranchError(
            f"{self.backend.where} kept moving: gave up after {self.retry.attempts} attempts"
        )

    @bulk
    def verify(self) -> VerifyReport:
        """`ledger verify`'s check of the tip, one shard in memory at a time."""
        tip = self.backend.tip()
        return verify_tree(tip.tree, tip.read, self.config, self.key, fetch=tip.fetch)

    @bulk
    def read(self) -> ParsedLedger:
        """Every event and located problem of the ledger at the tip."""
        files = self.read_files(is_shard)
        return parse_ledger({p: decode_shard(d) for p, d in files.items()}, self.key)

    def read_file(self, path: str) -> bytes | None:
        """One file of the tip, or None when it (or the branch) is absent."""
        return self.read_files(lambda p: p == path).get(path)

    def read_files(self, wanted: Callable[[str], bool]) -> dict[str, bytes]:
        """The tip's files whose path `wanted` accepts."""
        return self.backend.read_files(wanted)


def _changed(files: Mapping[str, bytes], tree: Mapping[str, str]) -> dict[str, bytes]:
    return {p: d for p, d in files.items() if tree.get(p) != git_blob_id(d)}


def check_extras(extras: Mapping[str, Extra]) -> dict[str, Extra]:
    """Extra (non-derived, non-ledger) files, validated: e.g. view state under `views/`."""
    for path in extras:
        if not _SAFE_PATH.match(path) or ".." in path.split("/"):
            raise LedgerError(f"{path!r} is not a safe relative path for an extra file")
        if is_shard(path) or path.startswith("ledger/") or is_derived(path):
            raise LedgerError(f"{path!r} belongs to the ledger or its derived files")
    return dict(extras)


def resolve_extras(extras: Mapping[str, Extra], current: Mapping[str, bytes]) -> dict[str, bytes]:
    """The content to write for each extra given the tip's files (extras left unchanged omitted)."""
    resolved: dict[str, bytes] = {}
    for path, extra in extras.items():
        data = extra if isinstance(extra, bytes) else extra(current.get(path))
        if data is not None:
            resolved[path] = bytes(data)
    return resolved


def commit_message(added: int, extras: Sequence[str], rebuilt: bool = False) -> str:
    """The commit message of an append (or of a rebuild of the derived files)."""
    parts = ["Rebuild the derived files"] if rebuilt else []
    if added:
        parts.append(f"Append {added} ledger event{'s' if added != 1 else ''}")
    if extras:
        parts.append("Update " + ", ".join(extras))
    return "; ".join(parts) + "\n"


def job_file_events(
    files: Mapping[str, bytes], repo: str, pr: int, key: bytes | None = None
) -> tuple[Event, ...]:
    """The trusted events of the job file among `files` that names this job: only the files at
    the job's paths (`job_paths`) are read, so a group's jobs read each file once.

    A job file is derived, and anyone who can push to the data branch can edit it: an event
    whose id is forged (or, with a ledger `key`, that is not signed with it) is left out. A file
    that is not a job file, or holds an entry that is not an event, is a `LedgerError` that says
    where and what (the ledger itself is intact: `ledger verify --fix` writes the file again).
    So is a second, different file that names the same job at another of its paths (one planted
    at another layout's path, say, holding the job without its latest events): which one is the
    ledger's is not for a path's sort order to decide."""
    found: dict[bytes, tuple[str, dict[str, object]]] = {}
    for path in sorted(p for p in job_paths(repo, pr) if p in files):
        body = _job_body(path, files[path])
        if body.get("repo") == repo and body.get("pr") == pr:
            found.setdefault(files[path], (path, body))
    if len(found) > 1:
        first, second = sorted(path for path, _ in found.values())[:2]
        raise LedgerError(
            f"{first} and {second}: two different job files for {repo}#{pr} (the ledger holds "
            "the events: `rubricate ledger verify --fix` writes the right one and removes the "
            "other)"
        )
    for path, body in found.values():
        raws = body.get("events")
        if type(raws) is not list:
            raise _not_a_job_file(path, "its `events` is not a list")
        events = []
        for number, raw in enumerate(raws):
            try:
                events.append(event_from_value(raw))
            except LedgerError as exc:
                raise _not_a_job_file(path, f"events[{number}]: {exc}") from None
        return trusted(events, key)
    return ()


def _job_body(path: str, data: bytes) -> dict[str, object]:
    try:
        body = json.loads(data)
    except UnicodeDecodeError as exc:
        raise _not_a_job_file(path, f"not UTF-8 (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise _not_a_job_file(path, f"not JSON ({where}: {exc.msg})") from None
    except RecursionError:
        raise _not_a_job_file(path, "not JSON (nested too deeply)") from None
    if type(body) is not dict:
        raise _not_a_job_file(path, f"a JSON {type(body).__name__}, not an object")
    return body


def _not_a_job_file(path: str, what: str) -> LedgerError:
    return LedgerError(
        f"{path}: not a valid job file: {what} (the ledger holds the events: "
        "`rubricate ledger verify --fix` writes the file again)"
    )
