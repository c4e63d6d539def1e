"""An append reads from a bucket of a thousand jobs only the jobs it touches, and writes the
bucket again from the other rows' lines: the same bytes as encoding every row."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from rubricate.ledger import cache
from rubricate.ledger.cache import BucketRows, CachedJob, bucket_files, bucket_jobs
from tests.ledger.factory import completed_job, event
from tests.ledger.memory_branch import apply_events

BUCKET = ".rubricate/facts/0.jsonl"


def _bucket() -> bytes:
    tree: dict[str, bytes] = {}
    for pr in range(1, 25):
        apply_events(tree, completed_job(pr, [3] * 5, [4] * 5, pr, author=f"a{pr % 3}"))
    apply_events(tree, [event("abandoned", 30, 40, "x30")])
    return tree[BUCKET]


def test_a_bucket_is_written_again_as_encoding_every_row_writes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = _bucket()
    read: list[object] = []
    parse = cache._job_from_row

    def counted(row: list[object]) -> CachedJob:
        read.append(row[1])
        return parse(row)  # type: ignore[arg-type]

    rows = BucketRows()
    rows.read(BUCKET, data)
    monkeypatch.setattr(cache, "_job_from_row", counted)
    moved = replace(rows[("o/r", 7)], file_id="0" * 40)
    rows[("o/r", 7)] = moved
    rows[("o/r", 999)] = replace(moved, facts=replace(moved.facts, pr=999))
    assert read == [7]  # only the job asked for was read
    monkeypatch.undo()
    every = bucket_jobs(BUCKET, data)
    every[("o/r", 7)] = rows[("o/r", 7)]
    every[("o/r", 999)] = rows[("o/r", 999)]
    assert rows.files([BUCKET]) == bucket_files(every)
    assert BucketRows().files([BUCKET]) == {}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda rows: [rows[0], rows[0]], "a job twice"),
        (lambda rows: [[*rows[0][:1], 1000, *rows[0][2:]]], "in the wrong bucket"),
        (lambda rows: [[rows[0][0], "7", *rows[0][2:]]], "starts with its job's"),
        (lambda rows: [rows[0][:12]], "starts with its job's"),
    ],
)
def test_a_bucket_whose_keys_are_wrong_is_refused(change: object, message: str) -> None:
    lines = _bucket().decode().splitlines()
    rows = change([json.loads(line) for line in lines])  # type: ignore[operator]
    data = "".join(json.dumps(row) + "\n" for row in rows).encode()
    with pytest.raises(ValueError, match=message):
        BucketRows().read(BUCKET, data)
    with pytest.raises(ValueError, match=message):
        bucket_jobs(BUCKET, data)
