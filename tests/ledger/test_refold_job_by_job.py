"""The full fold behind `ledger verify` and `verify --fix` goes job by job: a job is folded as
soon as the last shard naming it is read, so the events held at any time are one shard's and
those of the jobs still open, never the ledger's; and it gives exactly the files a fold of the
whole ledger in memory gives."""

from __future__ import annotations

import gc
from collections.abc import Mapping, Sequence

import pytest

from rubricate.errors import LedgerError
from rubricate.ledger.codec import is_shard
from rubricate.ledger.event import Event
from rubricate.ledger.paths import git_blob_id
from rubricate.ledger.plan import plan_rebuild
from rubricate.ledger.refold import job_ends, refold
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.ledger.verify import verify_files, verify_tree
from tests.ledger.factory import completed_job, event
from tests.ledger.memory_branch import apply_events, full_derive

MONTH = 24 * 31
MONTHS = 12
JOBS_A_MONTH = 4


def _branch() -> dict[str, bytes]:
    """Twelve monthly shards of four completed jobs each (five events a job)."""
    tree: dict[str, bytes] = {}
    for month in range(MONTHS):
        batch: list[Event] = []
        for n in range(1, JOBS_A_MONTH + 1):
            batch += completed_job(100 * month + n, [3] * 5, [4] * 5, month * MONTH + n)
        apply_events(tree, batch)
    assert sum(1 for p in tree if is_shard(p)) == MONTHS
    return tree


def _ids(tree: Mapping[str, bytes]) -> dict[str, str]:
    return {p: git_blob_id(d) for p, d in tree.items()}


def _live_events() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, Event))


class CountingReader:
    """Reads an in-memory branch and counts the events alive at each read of a shard."""

    def __init__(self, tree: Mapping[str, bytes]) -> None:
        self.tree = tree
        self.live: list[int] = []

    def __call__(self, paths: Sequence[str]) -> dict[str, bytes]:
        if any(is_shard(p) for p in paths):
            self.live.append(_live_events())
        return {p: self.tree[p] for p in paths}


def test_verify_holds_the_events_of_one_shard_and_the_open_jobs_not_the_ledger() -> None:
    tree = _branch()
    events = MONTHS * JOBS_A_MONTH * len(completed_job(1, [3] * 5, [4] * 5))
    before = _live_events()
    reader = CountingReader(tree)
    report = verify_tree(_ids(tree), reader)
    assert report.clean
    assert report.events == events
    assert len(reader.live) == 2 * MONTHS  # a light pass for the jobs' last shards, then the fold
    shard = events // MONTHS
    assert max(reader.live) - before <= shard  # held all, the last reads would see 11 shards'
    assert _live_events() - before == 0


def test_a_job_spread_over_shards_is_folded_once_after_its_last_shard() -> None:
    tree = _branch()
    late = event("rated", 1, (MONTHS - 1) * MONTH + 40, "late", rating=5, actor="carol")
    apply_events(tree, [late])  # job #1 now spans the first shard and the last one
    shards = sorted(p for p in tree if is_shard(p))
    ends, repos = job_ends(_ids(tree), shards, lambda paths: {p: tree[p] for p in paths})
    assert ends[("o/r", 1)] == MONTHS - 1
    assert ends[("o/r", 2)] == 0
    assert repos == {"o/r"}
    assert verify_files(tree).clean
    fold = refold(_ids(tree), lambda paths: {p: tree[p] for p in paths}, ReputationConfig())
    assert fold.derived == _ids(full_derive(tree))


def test_a_line_naming_another_repository_that_is_no_event_keeps_the_layout() -> None:
    tree = _branch()
    shard = sorted(p for p in tree if is_shard(p))[-1]
    tree[shard] += b'{"repo": "x/y", "pr": 7, "kind": "nonsense"}\n'
    reader = CountingReader(tree)
    plan = plan_rebuild(_ids(tree), reader, None)
    assert len(reader.live) == 3 * MONTHS  # the layout the light pass guessed was folded again
    assert plan.files == {p: d for p, d in full_derive(tree).items() if tree.get(p) != d}
    assert not any(p.startswith("jobs/o/") for p in plan.files)
    report = verify_files({**tree, **plan.files})
    assert not report.stale
    (corrupt,) = report.parsed.corrupt
    assert corrupt.file == shard


def test_a_duplicate_in_a_later_shard_is_reported_and_left_out_of_its_job() -> None:
    tree = _branch()
    first = sorted(p for p in tree if is_shard(p))[0]
    last = sorted(p for p in tree if is_shard(p))[-1]
    tree[last] += tree[first].split(b"\n")[0] + b"\n"
    fold = refold(_ids(tree), lambda paths: {p: tree[p] for p in paths}, ReputationConfig())
    assert len(fold.ledger.duplicates) == 1
    assert not fold.ledger.events
    assert fold.derived == _ids(full_derive(tree))


def test_a_shard_that_changes_between_the_two_passes_is_an_error_not_a_wrong_fold() -> None:
    tree = _branch()
    ids = _ids(tree)
    shard = sorted(p for p in tree if is_shard(p))[3]
    reads: list[str] = []

    def read(paths: Sequence[str]) -> dict[str, bytes]:
        reads.extend(paths)
        if paths == [shard] and reads.count(shard) == 2:
            return {shard: tree[shard] + event("rated", 1, 1, "new", rating=2).to_line().encode()}
        return {p: tree[p] for p in paths}

    with pytest.raises(LedgerError, match=f"{shard} changed while the ledger was read"):
        verify_tree(ids, read)
