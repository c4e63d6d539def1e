"""The ledger in a plain directory, e.g. a checkout of the data branch (shell: reads files).

For offline inspection, and for appending without git: the same plan as the branch store, with
files written in place (no commit, no push, no concurrency control).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from rubricate.config import ReputationConfig
from rubricate.errors import ConfigError
from rubricate.ledger.codec import ParsedLedger, decode_shard, git_blob_id, is_shard, parse_ledger
from rubricate.ledger.derive import job_paths
from rubricate.ledger.event import Event
from rubricate.ledger.plan import AppendPlan, Reader, plan_append, plan_rebuild, prepare
from rubricate.ledger.store_common import (
    AppendResult,
    Extra,
    check_extras,
    job_file_events,
    resolve_extras,
)


class DirectoryStore:
    """A data-branch checkout in a directory; `.git` is ignored."""

    def __init__(
        self, path: str, *, config: ReputationConfig | None = None, key: bytes | None = None
    ) -> None:
        self.root = Path(path)
        self.config = config
        self.key = key
        if not self.root.is_dir():
            raise ConfigError(f"{path}: not a directory")

    def __enter__(self) -> DirectoryStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Nothing to release: the directory is the user's."""

    def read(self) -> ParsedLedger:
        """Every event and located problem of the ledger in the directory."""
        files = self.read_files(is_shard)
        return parse_ledger({p: decode_shard(d) for p, d in files.items()}, self.key)

    def read_file(self, path: str) -> bytes | None:
        """One file, or None when absent."""
        target = self.root / path
        return target.read_bytes() if target.is_file() else None

    def read_files(self, wanted: Callable[[str], bool]) -> dict[str, bytes]:
        """Every file whose relative path `wanted` accepts."""
        found = {}
        for item in sorted(self.root.rglob("*")):
            relative = item.relative_to(self.root).as_posix()
            if item.is_file() and not relative.startswith(".git/") and wanted(relative):
                try:
                    found[relative] = item.read_bytes()
                except OSError as exc:
                    raise ConfigError(
                        f"{self.root}: cannot read {relative}: {exc.strerror}"
                    ) from None
        return found

    def read_job(self, repo: str, pr: int) -> tuple[Event, ...]:
        """One job's events from its job file."""
        paths = job_paths(repo, pr)
        return job_file_events(self.read_files(lambda p: p in paths), repo, pr, self.key)

    def append(
        self, events: Iterable[Event], extras: Mapping[str, Extra] | None = None
    ) -> AppendResult:
        """Append new events (and write `extras`), rewriting the derived files in place."""
        given = list(events)
        batch = prepare(given, self.key)
        extra_files = check_extras(extras or {})
        result = self._apply(
            lambda tree, read: plan_append(tree, read, batch, self.config, self.key),
            extra_files,
            False,
        )
        return replace(result, present=len(given) - result.added)

    def write_extra(self, path: str, data: Extra) -> AppendResult:
        """Write one non-derived file (content, or a function of the current content)."""
        return self.append([], {path: data})

    def rebuild(self) -> AppendResult:
        """Regenerate every derived file from the whole ledger."""
        return self._apply(
            lambda tree, read: plan_rebuild(tree, read, self.config, self.key), {}, True
        )

    def _apply(
        self,
        planner: Callable[[Mapping[str, str], Reader], AppendPlan],
        extras: Mapping[str, Extra],
        rebuild: bool,
    ) -> AppendResult:
        current = self.read_files(lambda _: True)
        tree = {p: git_blob_id(d) for p, d in current.items()}
        plan = planner(tree, lambda paths: {p: current[p] for p in paths})
        extra_files = resolve_extras(extras, current)
        changes = {p: d for p, d in {**plan.files, **extra_files}.items() if current.get(p) != d}
        deletions = [p for p in plan.deletions if p in current]
        derived = rebuild and bool(changes or deletions)
        if not (plan.added or derived or any(p in changes for p in extra_files)):
            return AppendResult(0, plan.present, None, 1)
        self._write_all(changes, deletions)
        return AppendResult(len(plan.added), plan.present, None, 1)

    def _write_all(self, changes: Mapping[str, bytes], deletions: Iterable[str]) -> None:
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
        for path in deletions:
            (self.root / path).unlink(missing_ok=True)
