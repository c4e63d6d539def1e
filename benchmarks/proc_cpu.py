"""CPU seconds of processes from /proc (Linux): one process with its reaped children, a
PostgreSQL server (postmaster and backends), and a sampler that keeps the last value seen of
processes that come and go (killed workers, a restarted receiver)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def cpu_of(pid: int) -> float:
    """A process's CPU seconds (user+sys, its reaped children included); 0 once it is gone."""
    try:
        fields = _stat(pid)
    except OSError:
        return 0.0
    return sum(int(fields[i]) for i in (11, 12, 13, 14)) / TICK  # utime stime cutime cstime


def tree_cpu(pid: int) -> float:
    """`cpu_of(pid)` plus every live child's (a postmaster and its running backends)."""
    total = cpu_of(pid)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int(_stat(int(entry.name))[1])
        except (OSError, IndexError, ValueError):
            continue
        if parent == pid:
            total += cpu_of(int(entry.name))
    return total


def postmaster(data_dir: Path) -> int:
    """The postmaster's pid of a PostgreSQL data folder."""
    return int((data_dir / "postmaster.pid").read_text().split()[0])


class Sampler:
    """Every `every` seconds, the CPU of each role's processes (`roles()` gives role -> pids,
    with the postmaster under "postgresql"); a process's last value is kept after it goes."""

    def __init__(self, roles: Callable[[], dict[str, list[int]]], every: float = 1.0) -> None:
        self.roles = roles
        self.every = every
        self.last: dict[tuple[str, int], float] = {}
        self.first: dict[tuple[str, int], float] = {}
        self._started = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Sampler:
        self.sample()
        self._started = True  # a process first seen later started during the run: from 0
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        self.sample()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.sample()

    def sample(self) -> None:
        """Read every role's processes once."""
        for role, pids in self.roles().items():
            for pid in pids:
                value = tree_cpu(pid) if role == "postgresql" else cpu_of(pid)
                key = (role, pid)
                self.first.setdefault(key, 0.0 if self._started else value)
                if value > 0:
                    self.last[key] = value

    def seconds(self) -> dict[str, float]:
        """CPU seconds each role used while sampled."""
        used: dict[str, float] = {}
        for (role, pid), value in self.last.items():
            used[role] = used.get(role, 0.0) + value - self.first[(role, pid)]
        return {role: round(value, 1) for role, value in sorted(used.items())}
