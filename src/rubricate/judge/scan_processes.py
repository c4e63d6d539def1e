"""The injection scan of a large change on two cores (shell: forks a process, uses pipes).

A change whose texts (`scan.scan_parts`) hold `SPLIT_FROM` characters or more is scanned with
the detector by this process and one forked child: the child takes the detector's share
`scan_shares.shares` gives (its last texts, the first of them maybe cut after a blank line)
and sends its findings back pickled through a pipe; this process first scores the cut text's
first lines and sends the child, through another pipe, where their running sums end (which
the child waits for only once it has read its lines), then scans every text with the rules
and the rest with the detector, and puts the findings in `scan_snapshot`'s order, so they are
the same. Where no child can be forked (one core, no `os.fork`, or other threads run in this
process) or the child fails, this process scans the child's share too. See DESIGN.md §7.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from rubricate.judge.detector import START, Carry
from rubricate.judge.scan import in_order, numbered, rule_findings, scan_part, scan_parts
from rubricate.judge.scan_shares import (
    Shares,
    detected,
    detected_first,
    detected_last,
    shares,
)

if TYPE_CHECKING:
    from rubricate.evidence.results import Finding
    from rubricate.evidence.snapshot import Snapshot
    from rubricate.judge.detector import Detector
    from rubricate.judge.scan import Part

CHILD_WAIT = 120.0
"""Seconds the child may take to send its findings (and waits for the running sums it needs);
past them it is killed and this process scans its share too."""
SPLIT_FROM = 150_000
"""Changes with this many characters to scan and more are scanned by two processes."""

Found = dict[int, list["Finding"]]
"""The detector's findings of some of the parts, by their index (of a cut text, those of the
lines one process scored)."""


def scan_change(
    snapshot: Snapshot, detector: Detector | None = None, split_from: int | None = None
) -> list[Finding]:
    """`scan.scan_snapshot(snapshot, detector)`, a change of `split_from` characters or more
    (`SPLIT_FROM` unless given) read on two cores when there is a detector."""
    parts = scan_parts(snapshot)
    least = SPLIT_FROM if split_from is None else split_from
    share = Shares()
    if detector is not None and sum(len(p.text) for p in parts) >= least and _can_fork():
        share = shares(parts)
    if detector is None or share == Shares():  # nothing for a child to do
        return [f for part in parts for f in scan_part(part, detector)]
    carry_read, carry_write = os.pipe()

    def work() -> bytes:
        return pickle.dumps(_their_share(parts, share, detector, carry_read))

    child = _forked(work, (carry_write,))
    os.close(carry_read)
    found: Found = {}
    carry = START
    try:
        with _closing(carry_write):
            if share.cut is not None:
                index, at = share.cut
                found[index], carry = detected_first(parts[index], at, detector)
                _send(carry_write, pickle.dumps(carry))
        ruled = [rule_findings(p.text, p.where) for p in parts]
        theirs = {*share.whole, *(share.cut[:1] if share.cut else ())}
        found |= {i: detected(p, detector) for i, p in enumerate(parts) if _mine(p, i, theirs)}
    finally:  # the child is waited for whatever happens here
        sent = _collected(child) if child else None
    found |= _theirs(parts, share, detector, sent, found, carry)
    return [
        f
        for i, part in enumerate(parts)
        for f in numbered(part, in_order(*ruled[i], found.get(i, [])))
    ]


def _mine(part: Part, index: int, theirs: set[int]) -> bool:
    return part.judged and index not in theirs


def _their_share(parts: list[Part], share: Shares, detector: Detector, carry_read: int) -> Found:
    """The detector's findings of the child's share (in the child): its whole texts first,
    then its cut text's last lines, from the running sums this process sends."""
    found = {i: detected(parts[i], detector) for i in share.whole}
    if share.cut is not None:
        index, at = share.cut
        found[index] = detected_last(parts[index], at, detector, lambda: _carry(carry_read))
    return found


def _carry(read: int, wait: float = CHILD_WAIT) -> Carry:
    """The running sums this process sent through the pipe `read`; ValueError when it sent
    none whole in `wait` seconds."""
    data = _read_all(read, wait)
    try:
        carry = pickle.loads(data) if data else None  # written by this child's parent just now
    except (pickle.UnpicklingError, EOFError) as exc:
        raise ValueError("no running sums came through the pipe") from exc
    if not isinstance(carry, Carry):
        raise ValueError("no running sums came through the pipe")
    return carry


def _theirs(
    parts: list[Part],
    share: Shares,
    detector: Detector,
    sent: Found | None,
    mine: Found,
    carry: Carry,
) -> Found:
    """The detector's findings of the child's share: as it sent them, or all scored here when
    it sent nothing (a cut text's last lines from `carry`); a cut text's findings after those
    of its first lines (`mine`)."""
    found = sent
    if found is None:
        found = {i: detected(parts[i], detector) for i in share.whole}
        if share.cut is not None:
            index, at = share.cut
            found[index] = detected_last(parts[index], at, detector, carry)
    if share.cut is not None:
        index = share.cut[0]
        found[index] = mine[index] + found[index]
    return found


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


def _forked(work: Callable[[], bytes], closed: Sequence[int] = ()) -> tuple[int, int] | None:
    """A child process that closes the descriptors `closed` (this process's ends of other
    pipes), writes `work()` to a pipe and exits: its id and the pipe's read end, or None when
    it cannot be started."""
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
            for descriptor in (read, *closed):
                os.close(descriptor)
            with os.fdopen(write, "wb") as out:
                out.write(work())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    return pid, read


def _collected(child: tuple[int, int], wait: float = CHILD_WAIT) -> Found | None:
    """What the child sent, once it has exited; None when it failed, or had sent nothing whole
    after `wait` seconds (it is then killed). The child is always reaped."""
    pid, read = child
    try:
        data = _read_all(read, wait)
        if data is None:
            os.kill(pid, signal.SIGKILL)
            return None
    finally:
        os.close(read)
        _pid, status = os.waitpid(pid, 0)
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        return None
    try:
        found: Found = pickle.loads(data)  # written by our own child just now
    except (pickle.UnpicklingError, EOFError, ValueError):
        return None
    return found


def _read_all(read: int, wait: float) -> bytes | None:
    """Everything written to the pipe `read` until its write end closed, or None when that
    took more than `wait` seconds."""
    chunks: list[bytes] = []
    give_up = time.monotonic() + wait
    while True:
        left = give_up - time.monotonic()
        if left <= 0:
            return None
        if not select.select([read], [], [], left)[0]:
            continue
        chunk = os.read(read, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _send(write: int, data: bytes) -> None:
    """Write `data` to the pipe `write` (nothing when its reader is gone: the child failed)."""
    view = memoryview(data)
    with contextlib.suppress(BrokenPipeError):
        while view:
            view = view[os.write(write, view) :]


@contextlib.contextmanager
def _closing(descriptor: int) -> Iterator[None]:
    """Close `descriptor` when the block ends, whatever happens in it."""
    try:
        yield
    finally:
        os.close(descriptor)
