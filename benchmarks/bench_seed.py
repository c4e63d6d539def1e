"""Seeding an N-event data branch with `ledger_seed.seed_branch`: wall, CPU and peak RSS.

Run: `python benchmarks/bench_seed.py --events 1000000 [--processes 2] [--tmp DIR] [--keep DIR]`:
seed a new bare repository with `bench_ledger.job_blocks(N)` (five events a job, 500 authors),
folded on `--processes` processes (2: this one and a forked child), and print one JSON object:
wall seconds; CPU seconds (user + system) in all, of this process, of the folding child and of
`git fast-import`; the peak RSS in MB of this process, of the child and of the largest child;
the objects' bytes and the load average. The repository is made under `--tmp` and deleted, or
made at `--keep` and left there (for `bench_verify.py --remote-from`).

What it measures is the seeder, not `ledger append`: the seeder writes the same files one append
of all N events writes (tests/benchmarks/test_ledger_seed.py checks the trees are equal), through
the same fold and file builders, but streams them straight into one fast-import commit of a new
branch, so it reads no tip, no id index and races no writer.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ledger import job_blocks
from ledger_seed import seed_branch


def main() -> None:
    """Seed a new bare repository with the benchmark's events; print the costs as JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=100000)
    parser.add_argument("--tmp", default=None, help="where the repository is made (deleted after)")
    parser.add_argument("--keep", default=None, help="make the repository here and keep it")
    parser.add_argument("--processes", type=int, default=2, help="folding processes: 1 or 2")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="ledger-seed-", dir=args.tmp) as tmp:
        remote = Path(args.keep) if args.keep else Path(tmp) / "remote.git"
        subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
        subprocess.run(
            ["git", "-C", str(remote), "symbolic-ref", "HEAD", "refs/heads/rubricate-data"],
            check=True,
        )
        before = _usage()
        started = time.perf_counter()
        spent: dict[str, float] = {}
        blocks = job_blocks(args.events)
        count = seed_branch(remote, blocks, "o/r", processes=args.processes, usage=spent)
        wall = time.perf_counter() - started
        after = _usage()
        stored = sum(f.stat().st_size for f in (remote / "objects").rglob("*") if f.is_file())
    own, child = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    row = {
        "events": count,
        "wall_s": round(wall, 3),
        "cpu_s": round(after[0] + after[1] - before[0] - before[1], 3),
        "cpu_python_s": round(after[0] - before[0], 3),
        "cpu_child_s": round(spent.get("child_cpu_s", 0.0), 3),
        "cpu_git_s": round(after[1] - before[1] - spent.get("child_cpu_s", 0.0), 3),
        "processes": args.processes,
        "peak_rss_mb": round(own.ru_maxrss / 1024, 1),
        "peak_rss_child_mb": round(spent.get("child_peak_rss_mb", 0.0), 1),
        "peak_rss_largest_child_mb": round(child.ru_maxrss / 1024, 1),
        "objects_bytes": stored,
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    print(json.dumps(row, indent=2))


def _usage() -> tuple[float, float]:
    """CPU seconds of this process, and of its finished children (git)."""
    own, child = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime, child.ru_utime + child.ru_stime


if __name__ == "__main__":
    main()
