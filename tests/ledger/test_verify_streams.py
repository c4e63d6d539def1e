"""`ledger verify` and `verify --fix` read the ledger one shard at a time and compare derived
files by blob id, so memory holds one shard and the fold, never the whole ledger."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from rubricate.ledger.backends import DataBranchStore, DirectoryStore
from rubricate.ledger.codec import is_shard
from rubricate.ledger.paths import git_blob_id
from rubricate.ledger.plan import plan_append, plan_rebuild, prepare
from rubricate.ledger.verify import verify_files, verify_tree
from tests.ledger.factory import completed_job, event
from tests.ledger.gitutil import bare_remote, commit_files, fetched_blobs
from tests.ledger.memory_branch import apply_events, full_derive

MONTH = 24 * 31


class OneShardAtATime:
    """Reads a branch held in memory, refusing any read that asks for two shards at once."""

    def __init__(self, tree: Mapping[str, bytes]) -> None:
        self.tree = tree
        self.paths: list[str] = []
        self.most_shards = 0

    def __call__(self, paths: Sequence[str]) -> dict[str, bytes]:
        shards = [p for p in paths if is_shard(p)]
        if len(shards) > 1:
            raise AssertionError(f"read {len(shards)} shards at once: {shards}")
        self.most_shards = max(self.most_shards, len(shards))
        self.paths.extend(paths)
        return {p: self.tree[p] for p in paths}


def _branch() -> dict[str, bytes]:
    tree: dict[str, bytes] = {}
    for month in range(5):
        for pr in range(1, 4):
            hours = month * MONTH + pr
            apply_events(tree, completed_job(10 * month + pr, [3] * 5, [4] * 5, hours))
    assert sum(1 for p in tree if is_shard(p)) == 5
    return tree


class FetchedFirst(OneShardAtATime):
    """Also records each `fetch` and refuses to read a shard no fetch named before."""

    def __init__(self, tree: Mapping[str, bytes]) -> None:
        super().__init__(tree)
        self.fetches: list[list[str]] = []

    def fetch(self, paths: Sequence[str]) -> None:
        self.fetches.append(list(paths))

    def __call__(self, paths: Sequence[str]) -> dict[str, bytes]:
        fetched = {p for batch in self.fetches for p in batch}
        if any(is_shard(p) and p not in fetched for p in paths):
            raise AssertionError(f"read before it was fetched: {paths}")
        return super().__call__(paths)


def _ids(tree: Mapping[str, bytes]) -> dict[str, str]:
    return {p: git_blob_id(d) for p, d in tree.items()}


def test_verify_reads_one_shard_at_a_time_and_finds_the_ledger_clean() -> None:
    tree = _branch()
    reader = OneShardAtATime(tree)
    report = verify_tree(_ids(tree), reader)
    assert report.clean
    assert reader.most_shards == 1
    assert len(report.parsed.shards) == 5
    assert report.problems == verify_files(tree).problems


def test_verify_fetches_every_shard_in_one_request_before_reading_one() -> None:
    tree = _branch()
    job = next(p for p in sorted(tree) if p.startswith("jobs/"))
    tree[job] = b"{}\n"
    reader = FetchedFirst(tree)
    written: dict[str, bytes] = {}
    fixer = type("Fixer", (), {"put": written.__setitem__, "reset": written.clear})()
    report = verify_tree(_ids(tree), reader, fix=fixer, fetch=reader.fetch)
    assert report.stale == (f"{job}: out of date",)
    assert reader.fetches == [sorted(p for p in tree if is_shard(p))]
    assert reader.most_shards == 1  # still read, and held, one at a time
    assert written[job] == full_derive(tree)[job]


def test_a_remote_branch_is_verified_and_fixed_with_one_fetch_of_its_shards(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = _branch()
    job = next(p for p in sorted(tree) if p.startswith("jobs/"))
    right, tree[job] = tree[job], b"{}\n"
    remote = bare_remote(tmp_path)
    commit_files(remote, tree, tmp_path / "work")
    shard_ids = {git_blob_id(d) for p, d in tree.items() if is_shard(p)}
    for fix in (False, True):
        calls = fetched_blobs(monkeypatch)
        with DataBranchStore(str(remote)) as store:
            found = store.fix().found if fix else store.verify()
        assert found.stale == (f"{job}: out of date",)
        assert [set(c) & shard_ids for c in calls if set(c) & shard_ids] == [shard_ids]
    with DataBranchStore(str(remote)) as store:
        assert store.read_file(job) == right


def test_verify_compares_derived_files_by_blob_id_without_reading_them() -> None:
    tree = _branch()
    job = next(p for p in sorted(tree) if p.startswith("jobs/"))
    tree[job] = b"{}\n"
    reader = OneShardAtATime(tree)
    report = verify_tree(_ids(tree), reader)
    assert report.stale == (f"{job}: out of date",)
    assert not [p for p in reader.paths if p.startswith(("jobs/", "badges/", ".rubricate/ids"))]


def test_verify_fix_rebuilds_reading_one_shard_at_a_time() -> None:
    tree = _branch()
    job = next(p for p in sorted(tree) if p.startswith("jobs/"))
    right, tree[job] = tree[job], b"{}\n"
    reader = OneShardAtATime(tree)
    plan = plan_rebuild(_ids(tree), reader, None)
    assert reader.most_shards == 1
    assert plan.files == {job: right}  # only what differs is held and written
    fixed = {p: d for p, d in {**tree, **plan.files}.items() if not is_shard(p)}
    assert fixed == full_derive(tree)


def test_a_rebuild_from_the_shards_alone_gives_every_derived_file() -> None:
    shards = {p: d for p, d in _branch().items() if is_shard(p)}
    reader = OneShardAtATime(shards)
    plan = plan_rebuild(_ids(shards), reader, None)
    assert reader.most_shards == 1
    assert plan.files == full_derive(shards)
    assert not plan.deletions


def test_an_append_that_folds_in_full_reads_one_shard_at_a_time() -> None:
    tree = _branch()
    del tree[".rubricate/fold-cache.json"]  # no cache head: the append folds the whole ledger
    reader = OneShardAtATime(tree)
    plan = plan_append(_ids(tree), reader, prepare([event("rated", 1, 3, "r", rating=4)]), None)
    assert not plan.incremental
    assert len(plan.added) == 1
    assert reader.most_shards == 1


@pytest.mark.parametrize("fixed", [False, True])
def test_a_directory_store_verifies_the_same_as_the_files(tmp_path: Path, fixed: bool) -> None:
    root = tmp_path
    tree = _branch()
    if not fixed:
        tree["badges/stray.json"] = b"{}\n"
    for path, data in tree.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
    with DirectoryStore(str(root)) as store:
        assert store.verify().problems == verify_files(tree).problems
