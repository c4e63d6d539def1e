"""A reader's view through the fold cache: every job's facts without parsing a line, and the
events of chosen jobs from their job files, only when what the cache names verifies."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from rubricate.errors import LedgerError
from rubricate.ledger.backends import DirectoryStore
from rubricate.ledger.codec import parse_ledger
from rubricate.ledger.fold import fold_jobs
from rubricate.ledger.snapshot import FoldSnapshot, fold_snapshot
from tests.ledger.factory import completed_job, event

KEY = b"k" * 32


def _snapshot(root: Path, key: bytes | None = None) -> FoldSnapshot | None:
    tip = DirectoryStore(str(root)).backend.tip()
    return fold_snapshot(tip.tree, tip.read, key)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    with DirectoryStore(str(tmp_path)) as store:
        store.append([*completed_job(1, [4] * 5, [5] * 5), event("rated", 1, 9, "r", rating=4)])
        store.append(completed_job(2, [3] * 5, [4] * 5, hours=20, author="bob"))
    return tmp_path


def test_a_snapshot_holds_every_jobs_facts_and_reads_their_events(data: Path) -> None:
    snapshot = _snapshot(data)
    assert snapshot is not None
    texts = {p.relative_to(data).as_posix(): p.read_text() for p in data.glob("ledger/*.jsonl")}
    folded = fold_jobs(parse_ledger(texts).events)
    assert {k: j.facts for k, j in snapshot.cache.jobs.items()} == {
        k: j.facts for k, j in folded.items()
    }
    read = snapshot.job_events([("o/r", 2)])
    assert read == {("o/r", 2): list(folded[("o/r", 2)].events)}


def test_no_snapshot_without_a_cache_that_verifies(data: Path) -> None:
    assert _snapshot(data, KEY) is None  # built without a key: not for a keyed reader
    shard = next(data.glob("ledger/*.jsonl"))
    shard.write_text(shard.read_text() + '{"kind": "nope"}\n')
    assert _snapshot(data) is None  # a shard the cache does not name
    (data / ".rubricate" / "fold-cache.json").unlink()
    assert _snapshot(data) is None


def test_a_job_file_that_is_not_the_one_the_cache_names_is_refused(data: Path) -> None:
    assert _snapshot(data) is not None
    (data / "jobs" / "1.json").write_text("{}")
    assert _snapshot(data) is None  # a derived file the cache does not name
    tip = DirectoryStore(str(data)).backend.tip()

    def read(paths: Sequence[str]) -> Mapping[str, bytes]:  # the file changed after the tree
        files = dict(tip.read(paths))
        body = json.loads(files.get("jobs/1.json", b"{}")) or {"events": [1]}
        files.update({"jobs/1.json": json.dumps({**body, "events": body["events"][:-1]}).encode()})
        return files

    (data / "jobs" / "1.json").unlink()
    with DirectoryStore(str(data)) as store:
        store.rebuild()
    tip = DirectoryStore(str(data)).backend.tip()
    snapshot = fold_snapshot(tip.tree, read)
    assert snapshot is not None
    with pytest.raises(LedgerError, match=r"jobs/1\.json"):
        snapshot.job_events([("o/r", 1)])


def test_the_head_the_buckets_and_what_the_caller_reads_next_come_in_one_fetch(
    data: Path,
) -> None:
    tip = DirectoryStore(str(data)).backend.tip()
    asked: list[list[str]] = []
    fetched: list[list[str]] = []

    def read(paths: Sequence[str]) -> Mapping[str, bytes]:
        asked.append(list(paths))
        return tip.read(paths)

    snapshot = fold_snapshot(tip.tree, read, None, fetched.append, ["reputation.json"])
    assert snapshot is not None
    buckets = {p for p in tip.tree if p.startswith(".rubricate/facts/")}
    assert len(fetched) == 1
    assert len(fetched[0]) == len(set(fetched[0]))
    assert set(fetched[0]) == {".rubricate/fold-cache.json", "reputation.json", *buckets}
    assert {p for paths in asked for p in paths} <= set(fetched[0])
