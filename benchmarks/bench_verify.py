"""`ledger verify` and `verify --fix` on an N-event ledger: wall, CPU and peak RSS of each.

Run: `python benchmarks/bench_verify.py --events 100000 --source remote [--tmp /tmp]`. Prints
one JSON object. The ledger is `bench_ledger.make_events(N)` (five events a job, 500 authors)
written as monthly shards with no derived file, on a bare repository's `rubricate-data` branch
(`--source remote`) or in a directory (`--source data`). Then, each in a fresh process:
- `rebuild`: `ledger verify --fix` derives every file from the shards (a full rebuild);
- `verify`: `ledger verify` of the rebuilt ledger (clean);
- `fix_one`: `ledger verify --fix` after one derived file (`badges/repo.json`) was made stale.
Each row gives the wall seconds, the CPU seconds (user + system, its git children included),
the peak RSS in MB of the largest process (`getrusage(RUSAGE_CHILDREN)` of a wrapper that runs
only that command) and the peak of the summed RSS of the command and its children (`git
fast-import` runs beside the fold: sampled from /proc every 0.1 s, so a shorter peak may be
missed), with its exit code. `--steps` picks some of the three. The data is made under `--tmp`
and deleted.

`--remote-from DIR` measures a branch seeded by `bench_seed.py --keep DIR` instead of making
one (a million events is made far faster that way): it is cloned (objects hard-linked) under
`--tmp`, and `rebuild` starts from a commit holding only its `ledger/` tree (with `--source
data`, that tree is written out to a directory, and `rebuild` starts from it). Its shards are
the size appends make them (`SHARD_BYTES`: about 290 at 100k events, 2,900 at 1M), where the
ledger made here has one shard a month whatever its size (24), which hides any cost paid per
shard.
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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ledger import make_events, shard_texts

BRANCH = "rubricate-data"
STALE = "badges/repo.json"
WRAP = "--wrap"
SAMPLE_S = 0.1
STEPS = ("rebuild", "verify", "fix_one")
PAGE = os.sysconf("SC_PAGE_SIZE")
BENCH_IDENTITY = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


def write_ledger(count: int, root: Path) -> dict[str, int]:
    """The shards of `count` events under `root` (events, jobs and shards made)."""
    events = make_events(count)
    texts = shard_texts(events)
    for path, text in texts.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return {"events": len(events), "jobs": len({e.pr for e in events}), "shards": len(texts)}


def commit_tree(work: Path, remote: Path, message: str) -> None:
    """Commit `work` as the whole tree of the bare `remote`'s branch."""
    git = ["git", f"--git-dir={remote}", f"--work-tree={work}"]
    subprocess.run([*git, "add", "-A"], check=True, env=BENCH_IDENTITY)
    subprocess.run([*git, "commit", "--quiet", "-m", message], check=True, env=BENCH_IDENTITY)


def make_ledger(count: int, source: str, tmp: Path) -> tuple[Path, dict[str, Any]]:
    """The shards of `count` events in a directory, or on a new bare repository's branch."""
    work = tmp / "work"
    work.mkdir()
    result: dict[str, Any] = {"source": source, **write_ledger(count, work)}
    if source == "data":
        return work, result
    where = tmp / "remote.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(where)], check=True)
    subprocess.run(
        ["git", f"--git-dir={where}", "symbolic-ref", "HEAD", f"refs/heads/{BRANCH}"], check=True
    )
    commit_tree(work, where, "Seed the ledger's shards")
    return where, result


def clone_seeded(seeded: Path, tmp: Path) -> tuple[Path, dict[str, int]]:
    """A bare clone of a seeded repository whose branch holds only the seed's `ledger/` tree
    (its derived files are gone: `verify --fix` rebuilds them), and its counts."""
    where = tmp / "remote.git"
    subprocess.run(
        ["git", "clone", "--quiet", "--bare", "--local", str(seeded), str(where)], check=True
    )
    git = ["git", f"--git-dir={where}"]
    ledger = _out([*git, "rev-parse", f"{BRANCH}:ledger"])
    tree = _out([*git, "mktree"], f"040000 tree {ledger}\tledger\n")
    commit = _out([*git, "commit-tree", tree, "-m", "Keep only the ledger"], env=BENCH_IDENTITY)
    subprocess.run([*git, "update-ref", f"refs/heads/{BRANCH}", commit], check=True)
    subprocess.run([*git, "symbolic-ref", "HEAD", f"refs/heads/{BRANCH}"], check=True)
    shards = _out([*git, "ls-tree", "-r", "--name-only", BRANCH]).splitlines()
    return where, {"shards": len(shards)}


def export_seeded(seeded: Path, tmp: Path) -> tuple[Path, dict[str, int]]:
    """A directory holding only the `ledger/` tree of a seeded repository's branch (`verify
    --fix` derives the rest), and its counts."""
    work = tmp / "work"
    work.mkdir()
    archive = subprocess.Popen(
        ["git", f"--git-dir={seeded}", "archive", BRANCH, "ledger"], stdout=subprocess.PIPE
    )
    subprocess.run(["tar", "-x", "-C", str(work)], stdin=archive.stdout, check=True)
    if archive.wait() != 0:
        raise RuntimeError(f"git archive of {seeded} failed")
    return work, {"shards": sum(1 for p in (work / "ledger").rglob("*.jsonl"))}


def _out(command: list[str], given: str | None = None, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(command, input=given, capture_output=True, text=True, check=True, env=env)
    return done.stdout.strip()


def make_stale(source: str, where: Path, tmp: Path) -> None:
    """Overwrite one derived file with content no fold gives."""
    if source == "data":
        (where / STALE).write_bytes(b"{}\n")
        return
    work = tmp / "stale-work"
    git = ["git", f"--git-dir={where}", f"--work-tree={work}"]
    work.mkdir()
    subprocess.run([*git, "checkout", "--quiet", "-f", BRANCH], check=True)
    (work / STALE).write_bytes(b"{}\n")
    commit_tree(work, where, "Make a file stale")


def measure(arguments: list[str]) -> dict[str, Any]:
    """Run `rubricate ARGUMENTS` under a wrapper process (`wrap`) that reports its usage."""
    done = subprocess.run(
        [sys.executable, __file__, WRAP, *arguments], capture_output=True, text=True, check=True
    )
    row: dict[str, Any] = json.loads(done.stdout)
    if row["exit"] not in (0, 1):
        raise RuntimeError(f"rubricate {' '.join(arguments)} failed: {row['stderr']}")
    if not row["stderr"]:
        del row["stderr"]
    return {k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()}


def wrap(arguments: list[str]) -> None:
    """Run `rubricate ARGUMENTS` as the only child, then print its wall and CPU seconds, the
    peak RSS of the largest of it and its own children (git), and the peak of their sum sampled
    every `SAMPLE_S` seconds, as JSON."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        child = subprocess.Popen(
            [sys.executable, "-m", "rubricate", *arguments], stdout=out, stderr=err
        )
        tree_peak = 0
        while child.poll() is None:
            tree_peak = max(tree_peak, tree_rss(child.pid))
            time.sleep(SAMPLE_S)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    lines = stdout.strip().splitlines() or [""]
    row = {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime}
    row["peak_rss_mb"] = usage.ru_maxrss / 1024
    row["peak_tree_rss_mb"] = tree_peak / 2**20
    print(
        json.dumps(
            {**row, "exit": child.returncode, "last_line": lines[-1], "stderr": stderr[-500:]}
        )
    )


def tree_rss(root: int) -> int:
    """The summed RSS in bytes of `root` and its descendants (from /proc; 0 where it is absent)."""
    parents: dict[int, int] = {}
    sizes: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            pages = int((entry / "statm").read_text().split()[1])
        except (OSError, IndexError, ValueError):
            continue
        parents[int(entry.name)] = int(stat.rpartition(")")[2].split()[1])
        sizes[int(entry.name)] = pages * PAGE
    total = 0
    for pid, size in sizes.items():
        ancestor, steps = pid, 0
        while ancestor not in (root, 0, 1) and steps < 64:
            ancestor, steps = parents.get(ancestor, 0), steps + 1
        total += size if ancestor == root else 0
    return total


def run(
    count: int, source: str, tmp: Path, steps: Sequence[str] = STEPS, seeded: Path | None = None
) -> dict[str, Any]:
    """Make the ledger (or clone the `seeded` one), then measure the commands of `steps` on it
    (in their order)."""
    if seeded is not None:
        made = export_seeded if source == "data" else clone_seeded
        where, counts = made(seeded, tmp)
        result: dict[str, Any] = {"source": source, "seeded": str(seeded), **counts}
    else:
        where, result = make_ledger(count, source, tmp)
    option = ["--remote" if source == "remote" else "--data", str(where)]
    if "rebuild" in steps:
        result["rebuild"] = measure(["ledger", "verify", "--fix", *option])
    if "verify" in steps:
        result["verify"] = measure(["ledger", "verify", *option])
    if "fix_one" in steps:
        make_stale(source, where, tmp)
        result["fix_one"] = measure(["ledger", "verify", "--fix", *option])
    result["load_average"] = [round(x, 2) for x in os.getloadavg()]
    return result


def main() -> None:
    """Parse the arguments, run, print JSON."""
    if sys.argv[1:2] == [WRAP]:
        wrap(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=10000)
    parser.add_argument("--source", choices=("remote", "data"), default="remote")
    parser.add_argument("--tmp", default=None, help="where to make the ledger (deleted after)")
    parser.add_argument(
        "--remote-from", default=None, help="a repository seeded by bench_seed.py --keep"
    )
    parser.add_argument(
        "--steps", default=",".join(STEPS), help="which of rebuild,verify,fix_one to measure"
    )
    args = parser.parse_args()
    steps = [s for s in args.steps.split(",") if s]
    if not set(steps) <= set(STEPS):
        parser.error(f"--steps: choose among {', '.join(STEPS)}")
    started = resource.getrusage(resource.RUSAGE_SELF)
    with tempfile.TemporaryDirectory(prefix="bench-verify-", dir=args.tmp) as tmp:
        seeded = Path(args.remote_from).resolve() if args.remote_from else None
        result = run(args.events, args.source, Path(tmp), steps, seeded)
    own = resource.getrusage(resource.RUSAGE_SELF)
    result["generate_cpu_s"] = round(
        own.ru_utime + own.ru_stime - started.ru_utime - started.ru_stime, 3
    )
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
