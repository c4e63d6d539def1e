"""Seed a data branch with N generated events in one `git fast-import` commit, streaming.

The branch is what one append of all N events would write (the same shards, job files, fold
cache, id index, totals and badges; `ledger verify` finds it clean), but it is built a job at a
time: each job is folded as it is generated, each month's lines are written once the generator
has moved past that month, and every file goes straight into fast-import. Memory holds the jobs'
facts, the event ids and about two months of lines, not the ledger.

The generator gives each event as the JSON values of its canonical ledger line. `Event.written`
reads them by the one rule that makes their JSON text the event's own line (each value exactly
as the event writes it back), so the line is `json.dumps` of them, made once, and no event is
dumped from its model; every event is checked so, not a sample.

The jobs come in blocks of consecutive jobs, each made lazily. With two processes, a forked
child folds three blocks in five (`CHILD_SHARE`) and sends back what this process writes (each
job's file, blob id and facts, its events' ids and lines), while this process folds the others
and writes every file to fast-import, itself a third process.

`bench_seed.py` measures it.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import queue
import resource
import signal
import struct
import subprocess
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO, Any

from rubricate.bulk import bulk
from rubricate.ledger.cache import CachedJob, FoldCache, cache_head, encode_ids, id_bucket
from rubricate.ledger.codec import shard_path
from rubricate.ledger.derive import job_file, summary_files
from rubricate.ledger.event import Event
from rubricate.ledger.fold import JobFacts, fold_job
from rubricate.ledger.paths import CACHE_PATH, Layout, git_blob_id
from rubricate.ledger.plan import appended
from rubricate.ledger.reputation_config import ReputationConfig

STAMP = "rubricate-bot <rubricate-bot@users.noreply.github.com> 1700000000 +0000"
SETTLED = timedelta(days=3)
"""How far the generator must be past a month before no job it makes has events in it."""
AHEAD = 4
"""How many folded blocks the child may have sent that this process has not written yet."""
CHILD_SHARE = 0.6
"""The share of the blocks the child folds: this process also writes every file, keeps the
shards' lines and ids, and makes the summary files at the end."""
Job = list[dict[str, Any]]
Folded = tuple[str, bytes, str, JobFacts, list[tuple[str, str, datetime, str]]]
"""A folded job: its file's path, content and blob id, its facts, and each event's id, id index
file, time and canonical line."""
_FRAME = struct.Struct("<Q")
_line = json.JSONEncoder(sort_keys=True, check_circular=False).encode
"""`json.dumps(values, sort_keys=True)`, its encoder made once: an event's canonical line."""


@bulk
def seed_branch(
    remote: Path,
    blocks: Sequence[Iterable[Job]],
    repo: str,
    branch: str = "rubricate-data",
    processes: int = 1,
    usage: dict[str, float] | None = None,
) -> int:
    """Write every job's events (given in `blocks` of consecutive jobs, jobs in order of their
    first event, each event the JSON values of its canonical ledger line) and the derived files
    to `branch` of the bare repository `remote`, in one commit, folding on `processes` (1 or 2)
    processes; the number of events. `usage` receives the child's CPU seconds (user + system)
    and peak RSS in MB, when there is one."""
    child = _Child(blocks, repo) if processes > 1 and len(blocks) > 1 else None
    proc = subprocess.Popen(
        ["git", "fast-import", "--quiet", "--done"], cwd=remote, stdin=subprocess.PIPE
    )
    assert proc.stdin is not None
    try:
        count = _stream(proc.stdin, _folded_blocks(blocks, repo, child), repo, branch)
    except BaseException:
        proc.kill()  # nothing is committed: fast-import never saw `done`
        proc.wait()
        raise
    finally:
        if child is not None:
            spent = child.stop()
            if usage is not None:
                usage["child_cpu_s"] = spent.ru_utime + spent.ru_stime
                usage["child_peak_rss_mb"] = spent.ru_maxrss / 1024
    _close(proc, proc.stdin)
    return count


def fold_records(records: Job, layout: Layout) -> Folded:
    """One job of canonical events' JSON values, folded: see `Folded`."""
    events = [Event.written(values) for values in records]
    summary = fold_job(events)
    given = list(zip(events, records, strict=True))
    data = job_file(summary, {event.id: values for event, values in given})
    lines = [(e.id, id_bucket(e.id), e.at, _line(values)) for e, values in given]
    return layout.job_path(*summary.key), data, git_blob_id(data), summary.facts, lines


def _folded_blocks(
    blocks: Sequence[Iterable[Job]], repo: str, child: _Child | None
) -> Iterator[list[Folded]]:
    """Each block's folded jobs, in order: every other one from the child when there is one."""
    layout = Layout((repo,))
    for index, block in enumerate(blocks):
        if child is not None and _theirs(index):
            yield child.next()
        else:
            yield [fold_records(records, layout) for records in block]


def _theirs(index: int) -> bool:
    """Whether the child folds the block at `index` (`CHILD_SHARE` of them, spread evenly)."""
    return int((index + 1) * CHILD_SHARE) > int(index * CHILD_SHARE)


class _Child:
    """A forked process folding the blocks `_theirs` gives it, sending each as it is done
    (pickled, through a pipe); a thread here reads them, at most `AHEAD` not yet taken."""

    def __init__(self, blocks: Sequence[Iterable[Job]], repo: str) -> None:
        read, write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # (the child: it never returns)
            os.close(read)
            _child_main(blocks, repo, write)
        os.close(write)
        self._pipe = os.fdopen(read, "rb")
        self._sent: queue.Queue[bytes | None] = queue.Queue(AHEAD)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while (head := self._pipe.read(_FRAME.size)) and len(head) == _FRAME.size:
            self._sent.put(self._pipe.read(_FRAME.unpack(head)[0]))
        self._sent.put(None)

    def next(self) -> list[Folded]:
        """The child's next block, folded."""
        frame = self._sent.get()
        if frame is None:
            raise RuntimeError("the seeder's child process ended before its last block")
        kind, value = pickle.loads(frame)
        if kind == "error":
            raise RuntimeError(f"the seeder's child process failed:\n{value}")
        folded: list[Folded] = value
        return folded

    def stop(self) -> resource.struct_rusage:
        """End the child (it has ended when every block was taken), reap it, and let the
        reading thread see the pipe's end; what the child used."""
        os.kill(self.pid, signal.SIGKILL)  # (a child that has exited is still there to reap)
        usage = os.wait4(self.pid, 0)[2]
        while self._reader.is_alive():  # (it ends at the pipe's end; it may wait to put)
            with contextlib.suppress(queue.Empty):
                self._sent.get(timeout=0.1)
        self._pipe.close()
        return usage


def _child_main(blocks: Sequence[Iterable[Job]], repo: str, fd: int) -> None:
    """Fold the child's blocks and send each; exit without running the parent's cleanups."""
    status = 1
    try:
        with os.fdopen(fd, "wb") as out:
            try:
                layout = Layout((repo,))
                for index, block in enumerate(blocks):
                    if _theirs(index):
                        _send(out, "block", [fold_records(r, layout) for r in block])
                status = 0
            except Exception:
                _send(out, "error", traceback.format_exc())
    finally:
        os._exit(status)


def _send(out: IO[bytes], kind: str, value: object) -> None:
    frame = pickle.dumps((kind, value), pickle.HIGHEST_PROTOCOL)
    out.write(_FRAME.pack(len(frame)))
    out.write(frame)
    out.flush()


def _stream(out: IO[bytes], blocks: Iterator[list[Folded]], repo: str, branch: str) -> int:
    """Write the commit to fast-import's input; the number of events."""
    message = b"Seed the ledger\n"
    out.write(f"commit refs/heads/{branch}\nauthor {STAMP}\ncommitter {STAMP}\n".encode())
    out.write(b"data %d\n%s" % (len(message), message))
    derived: dict[str, str] = {}
    shards: dict[str, str] = {}
    cached: dict[tuple[str, int], CachedJob] = {}
    ids: dict[str, set[str]] = {}
    count = 0
    pending: dict[str, list[tuple[datetime, str]]] = {}

    def write(path: str, data: bytes, into: dict[str, str], blob_id: str | None = None) -> None:
        out.write(b"M 100644 inline %s\ndata %d\n" % (path.encode(), len(data)))
        out.write(data)
        out.write(b"\n")
        into[path] = blob_id or git_blob_id(data)

    def flush(settled: Callable[[str], bool]) -> None:
        for month in [m for m in pending if settled(m)]:
            for path, data in appended({}, pending.pop(month)).items():
                write(path, data, shards)

    for block in blocks:
        for path, data, blob_id, facts, lines in block:
            write(path, data, derived, blob_id)
            cached[(facts.repo, facts.pr)] = CachedJob(facts, blob_id)
            count += len(lines)
            for event_id, id_path, at, line in lines:
                ids.setdefault(id_path, set()).add(event_id)
                pending.setdefault(shard_path(at), []).append((at, line))
        if block:
            flush(_before(block[-1][3].opened_at - SETTLED))
    flush(lambda _: True)
    cache = FoldCache(config=ReputationConfig(), shards=shards, jobs=cached)
    files = summary_files(cache)
    files.update((path, encode_ids(ids.pop(path))) for path in sorted(ids))  # (as `id_files`)
    for path, data in files.items():
        write(path, data, derived)
    write(CACHE_PATH, cache_head(cache, derived), derived)
    out.write(b"done\n")
    return count


def _before(moment: datetime) -> Callable[[str], bool]:
    """Whether a month's shard path names a month that ended before `moment`."""
    bound = shard_path(moment)
    return lambda path: path < bound


def _close(proc: subprocess.Popen[bytes], out: IO[bytes]) -> None:
    out.close()
    if proc.wait() != 0:
        raise RuntimeError(f"git fast-import failed with {proc.returncode}")
