"""Seed a data branch with N generated events in one `git fast-import` commit, streaming.

The branch is what one append of all N events would write (the same shards, job files, fold
cache, id index, totals and badges; `ledger verify` finds it clean), but it is built a job at a
time: each job is folded as it is generated, each month's lines are written once the generator
has moved past that month, and every file goes straight into fast-import. Memory holds the jobs'
facts, the event ids and about two months of lines, not the ledger.

The generator gives each event as the JSON object of its canonical ledger line: the line is
written once from it and validated once, and the object is the event's entry in its job file, so
no event is dumped from its model.

`bench_seed.py` measures it.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO, Any

from rubricate.bulk import bulk
from rubricate.ledger.cache import CachedJob, FoldCache, cache_head, id_files
from rubricate.ledger.codec import shard_path
from rubricate.ledger.derive import job_file, summary_files
from rubricate.ledger.event import Event
from rubricate.ledger.fold import fold_job
from rubricate.ledger.paths import CACHE_PATH, Layout, git_blob_id
from rubricate.ledger.plan import appended
from rubricate.ledger.reputation_config import ReputationConfig

STAMP = "rubricate-bot <rubricate-bot@users.noreply.github.com> 1700000000 +0000"
CHECKED = 10
"""The generator's first jobs are checked to be canonical: later ones are written as given."""
SETTLED = timedelta(days=3)
"""How far the generator must be past a month before no job it makes has events in it."""


@bulk
def seed_branch(
    remote: Path, jobs: Iterator[list[dict[str, Any]]], repo: str, branch: str = "rubricate-data"
) -> int:
    """Write every job's events (jobs in order of their first event, each event the JSON object
    of its canonical ledger line, as `Event.to_line` writes it) and the derived files to
    `branch` of the bare repository `remote`, in one commit; the number of events."""
    proc = subprocess.Popen(
        ["git", "fast-import", "--quiet", "--done"], cwd=remote, stdin=subprocess.PIPE
    )
    assert proc.stdin is not None
    try:
        count = _stream(proc.stdin, jobs, repo, branch)
    except BaseException:
        proc.kill()  # nothing is committed: fast-import never saw `done`
        proc.wait()
        raise
    _close(proc, proc.stdin)
    return count


def _stream(out: IO[bytes], jobs: Iterator[list[dict[str, Any]]], repo: str, branch: str) -> int:
    """Write the commit to fast-import's input; the number of events."""
    message = b"Seed the ledger\n"
    out.write(f"commit refs/heads/{branch}\nauthor {STAMP}\ncommitter {STAMP}\n".encode())
    out.write(b"data %d\n%s" % (len(message), message))
    derived: dict[str, str] = {}
    shards: dict[str, str] = {}
    cached: dict[tuple[str, int], CachedJob] = {}
    ids: list[str] = []
    pending: dict[str, list[tuple[datetime, str]]] = {}
    layout = Layout((repo,))

    def write(path: str, data: bytes, into: dict[str, str]) -> None:
        out.write(b"M 100644 inline %s\ndata %d\n" % (path.encode(), len(data)))
        out.write(data)
        out.write(b"\n")
        into[path] = git_blob_id(data)

    def flush(settled: Callable[[str], bool]) -> None:
        for month in [m for m in pending if settled(m)]:
            for path, data in appended({}, pending.pop(month)).items():
                write(path, data, shards)

    for number, records in enumerate(jobs):
        lines = [json.dumps(record, sort_keys=True) for record in records]
        events = [Event.model_validate_json(line) for line in lines]
        if number < CHECKED and [e.to_line() for e in events] != lines:
            raise ValueError("the generator's events are not canonical (as Event.to_line writes)")
        summary = fold_job(events)
        data = job_file(summary, {event.id: r for event, r in zip(events, records, strict=True)})
        write(layout.job_path(*summary.key), data, derived)
        cached[summary.key] = CachedJob(summary.facts, derived[layout.job_path(*summary.key)])
        for event, line in zip(events, lines, strict=True):
            ids.append(event.id)
            pending.setdefault(shard_path(event.at), []).append((event.at, line))
        flush(_before(summary.facts.opened_at - SETTLED))
    flush(lambda _: True)
    cache = FoldCache(config=ReputationConfig(), shards=shards, jobs=cached)
    files = summary_files(cache)
    files.update(id_files(ids))
    for path, data in files.items():
        write(path, data, derived)
    write(CACHE_PATH, cache_head(cache, derived), derived)
    out.write(b"done\n")
    return len(ids)


def _before(moment: datetime) -> Callable[[str], bool]:
    """Whether a month's shard path names a month that ended before `moment`."""
    bound = shard_path(moment)
    return lambda path: path < bound


def _close(proc: subprocess.Popen[bytes], out: IO[bytes]) -> None:
    out.close()
    if proc.wait() != 0:
        raise RuntimeError(f"git fast-import failed with {proc.returncode}")
