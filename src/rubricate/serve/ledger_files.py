"""The PostgreSQL ledger seen as the Action's data store: job files, view state and appends
(shell: PostgreSQL).

The Action reads a job's events from its job file (`jobs/<pr>.json`) and the PR's view state
from `views/…/<pr>.json`; `LedgerFiles` derives the one from the events table and keeps the other
in `rubricate_extras`, so the worker runs the Action's own gathering code unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Set
from typing import TYPE_CHECKING, Any

from rubricate.bot.view_state import view_path
from rubricate.ledger.derive import job_file
from rubricate.ledger.event import Event
from rubricate.ledger.fold import fold_job
from rubricate.ledger.paths import job_paths

if TYPE_CHECKING:
    import psycopg

    from rubricate.ledger.pg_store import PostgresStore
    from rubricate.ledger.reputation_config import ReputationConfig
    from rubricate.ledger.store import AppendResult, Extra


_NUMBERED = re.compile(r"/(\d+)\.json$")
"""A job file's or view state's PR number, at the end of its path."""


class LedgerFiles:
    """One repository's jobs and view state in the database, as a `DataStore`."""

    branch = "postgresql"

    def __init__(self, store: PostgresStore, repo: str) -> None:
        self.store = store
        self.repo = repo
        self.config: ReputationConfig | None = None

    @property
    def conn(self) -> psycopg.Connection[Any]:
        """The store's connection."""
        return self.store.conn

    def append(
        self, events: Iterable[Event], extras: Mapping[str, Extra] | None = None
    ) -> AppendResult:
        """Insert the events not yet present and write the extras, in one transaction."""
        self.store.config = self.config
        with self.conn.transaction():
            result = self.store.append(events)
            for path, data in (extras or {}).items():
                self.write_extra(path, data)
        return result

    def write_extra(self, path: str, data: Extra) -> AppendResult:
        """Write one extra file (a function gets the stored bytes, None when absent)."""
        from rubricate.ledger.store import AppendResult

        with self.conn.transaction():
            row = self.conn.execute(
                "SELECT data FROM rubricate_extras WHERE path = %s FOR UPDATE", (path,)
            ).fetchone()
            old = bytes(row[0]) if row else None
            new = data(old) if callable(data) else data
            if new is not None and new != old:
                self.conn.execute(
                    "INSERT INTO rubricate_extras (path, data) VALUES (%s, %s)"
                    " ON CONFLICT (path) DO UPDATE SET data = excluded.data",
                    (path, new),
                )
        return AppendResult(0, 0, None, 1)

    def read_files(self, wanted: Callable[[str], bool]) -> dict[str, bytes]:
        """The job files and view states of this repository that `wanted` accepts.

        When `wanted` is a set's `__contains__` (the Action asks for its paths so), only those
        paths are looked up; any other test is put to every job and view of the repository."""
        listed = getattr(wanted, "__self__", None)
        if (
            isinstance(listed, frozenset | set)
            and getattr(wanted, "__name__", "") == "__contains__"
        ):
            return self._read_listed(listed)
        files: dict[str, bytes] = {}
        prs = [
            pr
            for (pr,) in self.conn.execute(
                "SELECT pr FROM rubricate_jobs WHERE repo = %s", (self.repo,)
            )
            if any(wanted(path) for path in job_paths(self.repo, pr))
        ]
        if prs:
            files.update(self._job_files(prs, wanted))
        prefix = view_path(self.repo, 0).rsplit("/", 1)[0] + "/"  # this repository's views
        for path, data in self.conn.execute(
            "SELECT path, data FROM rubricate_extras WHERE starts_with(path, %s)", (prefix,)
        ):
            if wanted(path):
                files[path] = bytes(data)
        return files

    def _read_listed(self, paths: Set[object]) -> dict[str, bytes]:
        """The files at these paths (job files and view states of this repository)."""
        numbers = {int(m[1]) for p in paths if isinstance(p, str) and (m := _NUMBERED.search(p))}
        wanted = [pr for pr in numbers if any(p in paths for p in job_paths(self.repo, pr))]
        prs = [
            pr
            for (pr,) in self.conn.execute(
                "SELECT pr FROM rubricate_jobs WHERE repo = %s AND pr = ANY(%s)",
                (self.repo, sorted(wanted)),
            )
        ]
        files = self._job_files(prs, paths.__contains__) if prs else {}
        prefix = view_path(self.repo, 0).rsplit("/", 1)[0] + "/"
        views = sorted(p for p in paths if isinstance(p, str) and p.startswith(prefix))
        if views:
            for path, data in self.conn.execute(
                "SELECT path, data FROM rubricate_extras WHERE path = ANY(%s)", (views,)
            ):
                files[path] = bytes(data)
        return files

    def _job_files(self, prs: list[int], wanted: Callable[[str], bool]) -> dict[str, bytes]:
        rows = self.conn.execute(
            "SELECT pr, line FROM rubricate_events WHERE repo = %s AND pr = ANY(%s) ORDER BY seq",
            (self.repo, prs),
        ).fetchall()
        by_pr: dict[int, list[Event]] = {}
        for pr, line in rows:
            by_pr.setdefault(pr, []).append(Event.model_validate_json(line))
        path_of = {pr: next(p for p in job_paths(self.repo, pr) if wanted(p)) for pr in by_pr}
        return {path_of[pr]: job_file(fold_job(events)) for pr, events in by_pr.items()}
