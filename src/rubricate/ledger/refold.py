"""The full fold of a ledger read one shard at a time, job by job (pure: reads through a given
function), for `ledger verify` and `verify --fix` (DESIGN.md §6).

Memory holds one shard's events, the events of the jobs still open at that point of the ledger,
and the fold's compact state (each job's facts and file id, each id seen), never the whole
ledger: a job is folded, and its file produced, as soon as the last shard naming it is read.
Before the first read, `fetch` is given every shard at once, so that a store whose files come
from elsewhere (a partial clone of a remote) brings them in one request, not one per shard.
That shard is found by a first, light pass that reads only each line's `repo` and `pr`
(validated as the event validates them, so a valid event's job is the one the pass saw). Each
file is handed to `emit` with its git blob id as it is produced, and let go; when the layout the
light pass found proves wrong, `restart` is called and the files come again in the right one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from rubricate.errors import LedgerError
from rubricate.ledger.cache import CachedJob
from rubricate.ledger.codec import (
    LedgerBuilder,
    ParsedLedger,
    ShardParse,
    decode_shard,
    is_shard,
    parse_shard,
)
from rubricate.ledger.derive import JobKey, closing_files, folded_job
from rubricate.ledger.event import Event
from rubricate.ledger.fold import fold_job
from rubricate.ledger.paths import Layout, git_blob_id
from rubricate.ledger.records import Record
from rubricate.ledger.reputation_config import ReputationConfig

Reader = Callable[[Sequence[str]], Mapping[str, bytes]]
Fetch = Callable[[Sequence[str]], None]
"""Makes the contents of these paths readable without a request each (reads nothing back)."""
Emit = Callable[[str, str, bytes], None]
"""Takes a derived file as the fold produces it: its path, blob id and content."""


@dataclass(frozen=True, kw_only=True)
class _JobOnly(Record):
    """A line's job, read with the types `Event` gives `repo` and `pr`."""

    repo: str
    pr: int


@dataclass(frozen=True)
class Refold:
    """What the full fold gives: the ledger's problems and shards (no events: `events` counts
    them), and every derived file's blob id."""

    ledger: ParsedLedger
    events: int
    derived: Mapping[str, str]


def refold(
    tree: Mapping[str, str],
    read: Reader,
    config: ReputationConfig,
    key: bytes | None = None,
    emit: Emit = lambda path, blob_id, data: None,
    restart: Callable[[], None] = lambda: None,
    fetch: Fetch = lambda paths: None,
) -> Refold:
    """Fold the ledger of `tree` (path → blob id), whose shards `read` gives one at a time
    (after one `fetch` of them all), handing each derived file to `emit` as it is produced."""
    shards = sorted(p for p in tree if is_shard(p))
    fetch(shards)
    ends, repos = job_ends(tree, shards, read)
    layout = Layout(tuple(sorted(repos)))
    for _ in range(2):  # the second time with the layout the first one found
        fold = _Fold(config, key, layout, emit)
        for index, path in enumerate(shards):
            fold.add(parse_shard(path, _text(tree, read, path), key), ends, index)
        found = Layout(tuple(sorted({repo for repo, _ in (*fold.jobs, *fold.open)})))
        if found == layout:
            break
        layout = found  # a line naming another repository was not a valid event
        restart()
    return fold.finish()


def job_ends(
    tree: Mapping[str, str], shards: Sequence[str], read: Reader
) -> tuple[dict[JobKey, int], set[str]]:
    """For each job some line names, the index in `shards` of the last shard naming it; and the
    repositories named (a valid event's are among them)."""
    ends: dict[JobKey, int] = {}
    for index, path in enumerate(shards):
        for line in _text(tree, read, path).split("\n"):
            try:
                values = json.loads(line)
                job = _JobOnly.model_validate({"repo": values["repo"], "pr": values["pr"]})
            except (ValueError, KeyError, TypeError, RecursionError):  # not an event's line
                continue
            ends[(job.repo, job.pr)] = index
    return ends, {repo for repo, _ in ends}


class _Fold:
    """The fold's state between shards."""

    def __init__(
        self, config: ReputationConfig, key: bytes | None, layout: Layout, emit: Emit
    ) -> None:
        self.config = config
        self.builder = LedgerBuilder(key)
        self.layout = layout
        self.emit = emit
        self.open: dict[JobKey, list[Event]] = {}
        self.jobs: dict[JobKey, CachedJob] = {}
        self.derived: dict[str, str] = {}

    def add(self, shard: ShardParse, ends: Mapping[JobKey, int], index: int) -> None:
        """Take in the shard at `index`, then fold every job it is the last shard of."""
        for event in self.builder.add_shard(shard):
            self.open.setdefault((event.repo, event.pr), []).append(event)
        for job in sorted(j for j in self.open if j in ends and ends[j] <= index):
            self._fold(job)

    def _fold(self, job: JobKey) -> None:
        data, self.jobs[job] = folded_job(fold_job(self.open.pop(job)))
        self._produced(self.layout.job_path(*job), data)

    def _produced(self, path: str, data: bytes) -> None:
        blob_id = git_blob_id(data)
        self.derived[path] = blob_id
        self.emit(path, blob_id, data)

    def finish(self) -> Refold:
        """Fold the jobs left open, then produce the files that follow from every job."""
        for job in sorted(self.open):
            self._fold(job)
        ledger = self.builder.result()
        closing = closing_files(ledger, self.jobs, self.config, self.builder.seen, self.derived)
        for path, data in closing:
            self._produced(path, data)
        return Refold(ledger, self.builder.events, self.derived)


def _text(tree: Mapping[str, str], read: Reader, path: str) -> str:
    """A shard's text, checked to be the content the tree names."""
    data = read([path])[path]
    if git_blob_id(data) != tree[path]:
        raise LedgerError(f"{path} changed while the ledger was read")
    return decode_shard(data)
