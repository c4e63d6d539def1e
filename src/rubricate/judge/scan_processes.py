"""The injection scan of a large change on two cores (shell: forks a process, reads a pipe).

A change whose texts (`scan.scan_parts`) hold `SPLIT_FROM` characters or more is scanned by
this process and one forked child, each given whole texts of about equal size; the child sends
its findings back pickled through a pipe, and they are put back in `scan_snapshot`'s order, so
the findings are the same. Where no child can be forked (one core, no `os.fork`, or other
threads run in this process) or the child fails, this process scans the child's texts too.
See DESIGN.md §7.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rubricate.judge.scan import Part, scan_part, scan_parts

if TYPE_CHECKING:
    from rubricate.evidence.results import Finding
    from rubricate.evidence.snapshot import Snapshot
    from rubricate.judge.detector import Detector

CHILD_WAIT = 120.0
"""Seconds the child may take to send its findings; past them it is killed and this process
scans its texts too."""
SPLIT_FROM = 150_000
"""Changes with this many characters to scan and more are scanned by two processes."""

Found = dict[int, list["Finding"]]
"""The findings of some of the parts, by their index."""


def scan_change(
    snapshot: Snapshot, detector: Detector | None = None, split_from: int | None = None
) -> list[Finding]:
    """`scan.scan_snapshot(snapshot, detector)`, a change of `split_from` characters or more
    (`SPLIT_FROM` unless given) read on two cores."""
    parts = scan_parts(snapshot)
    found: Found = {}
    least = SPLIT_FROM if split_from is None else split_from
    if sum(len(p.text) for p in parts) >= least and _can_fork():
        mine, theirs = halves([len(p.text) for p in parts])
        child = _forked(lambda: pickle.dumps(_scanned(parts, theirs, detector))) if theirs else None
        try:
            found = _scanned(parts, mine, detector)
        finally:  # the child is waited for whatever happens here
            sent = _collected(child) if child else {}
        found.update(sent)
    missing = [i for i in range(len(parts)) if i not in found]
    found.update(_scanned(parts, missing, detector))
    return [f for i in range(len(parts)) for f in found[i]]


def halves(sizes: Sequence[int]) -> tuple[list[int], list[int]]:
    """The indices of `sizes` in two groups of about equal total, largest first to the lighter
    one; each group in index order."""
    groups: tuple[list[int], list[int]] = ([], [])
    totals = [0, 0]
    for index in sorted(range(len(sizes)), key=lambda i: -sizes[i]):
        lighter = 0 if totals[0] <= totals[1] else 1
        groups[lighter].append(index)
        totals[lighter] += sizes[index]
    return sorted(groups[0]), sorted(groups[1])


def _scanned(parts: list[Part], indices: Sequence[int], detector: Detector | None) -> Found:
    return {i: scan_part(parts[i], detector) for i in indices}


def _can_fork() -> bool:
    """A child would run beside this process, and can be forked safely: this process may use
    two cores, the platform is Linux (a fork is unsafe on macOS once its system frameworks ran,
    and only Linux counts every thread) and no other thread runs here (a lock another thread
    held at the fork would stay held in the child)."""
    return cores() >= 2 and sys.platform == "linux" and hasattr(os, "fork") and _threads() == 1


def _threads() -> int:
    """The threads of this process: the system's count where it gives one (a library's own
    threads too), else Python's."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _forked(work: Callable[[], bytes]) -> tuple[int, int] | None:
    """A child process that writes `work()` to a pipe and exits: its id and the pipe's read
    end, or None when it cannot be started."""
    read, write = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return None
    if pid == 0:  # the child: it never returns, whatever happens
        code = 1
        try:
            os.close(read)
            with os.fdopen(write, "wb") as out:
                out.write(work())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    return pid, read


def _collected(child: tuple[int, int], wait: float = CHILD_WAIT) -> Found:
    """The findings the child wrote, once it has exited; none when it failed, or had sent
    nothing whole after `wait` seconds (it is then killed). The child is always reaped."""
    pid, read = child
    chunks: list[bytes] = []
    give_up = time.monotonic() + wait
    try:
        while True:
            left = give_up - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                return {}
            if not select.select([read], [], [], left)[0]:
                continue
            chunk = os.read(read, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read)
        _pid, status = os.waitpid(pid, 0)
    data = b"".join(chunks)
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        return {}
    try:
        found: Found = pickle.loads(data)  # written by our own child just now
    except (pickle.UnpicklingError, EOFError, ValueError):
        return {}
    return found
