"""The fold cache's bucket rows are read back exactly as written, and a row or bucket that is
not one is refused (the cache is then not used), as `parse_time` and the row's shape decide."""

from __future__ import annotations

import json

import pytest

from rubricate.ledger.cache import bucket_files, bucket_jobs, load_cache, read_head
from rubricate.ledger.paths import CACHE_PATH
from tests.ledger.factory import completed_job, event
from tests.ledger.memory_branch import apply_events

BUCKET = ".rubricate/facts/0.jsonl"


def _branch() -> tuple[dict[str, object], dict[str, bytes]]:
    tree: dict[str, bytes] = {}
    rated = event("rated", 1, 30, "r", rating=4, actor_role="maintain")
    apply_events(tree, [*completed_job(1, [4, 4, 4, 4, 4], [5, 5, 5, 5, 5]), rated])
    apply_events(tree, [event("abandoned", 2, 3, "x")])
    head = read_head(tree[CACHE_PATH])
    assert head is not None
    return head, {p: tree[p] for p in head["buckets"]}


def test_rows_read_back_as_written() -> None:
    head, buckets = _branch()
    cache = load_cache(head, buckets)
    assert cache is not None
    assert bucket_files(cache) == buckets
    rows = [json.loads(line) for line in buckets[BUCKET].decode().splitlines()]
    assert [r[8] for r in rows] == [[["maintain", 4]], []]  # ratings, then none
    assert cache.jobs[("o/r", 1)].facts.closed_at is not None
    assert cache.jobs[("o/r", 2)].facts.closed_at is None


def _read(row: list[object], path: str = BUCKET) -> bool:
    """Whether a bucket of this one row is read (the cache is used)."""
    head, _ = _branch()
    head = {**head, "repos": ["o/r"]}
    return load_cache(head, {path: (json.dumps(row) + "\n").encode()}) is not None


@pytest.mark.parametrize(
    ("index", "value"),
    [
        (4, None),  # no opening time
        (12, None),  # no last time
        (4, "2023-01-01T00:00:00"),  # a time without a timezone
        (5, "yesterday"),
        (6, 5),
        (3, "closed"),  # not a state
        (8, 0),  # ratings not a list
        (8, [["maintain"]]),
        (1, "one"),
    ],
)
def test_a_malformed_row_is_refused(index: int, value: object) -> None:
    _, buckets = _branch()
    row = json.loads(buckets[BUCKET].decode().splitlines()[0])
    assert _read(row)
    row[index] = value
    assert not _read(row)


@pytest.mark.parametrize("cut", [row for row in range(11, 15) if row != 13])
def test_a_row_of_another_length_is_refused(cut: int) -> None:
    _, buckets = _branch()
    row = json.loads(buckets[BUCKET].decode().splitlines()[0])
    assert not _read((row * 2)[:cut])


@pytest.mark.parametrize("path", [".rubricate/facts/00.jsonl", ".rubricate/facts/x.jsonl"])
def test_a_bucket_of_another_name_is_refused(path: str) -> None:
    _, buckets = _branch()
    assert not _read(json.loads(buckets[BUCKET].decode().splitlines()[0]), path)
    assert bucket_jobs(path, b"") == {}  # an empty one holds no job to be misplaced
