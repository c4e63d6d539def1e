"""Incremental report benchmark: `rubricate report` on an N-event data branch, cold, then after
one new event (reusing the last report), then with `--full`.

Run: `python benchmarks/bench_report_incremental.py [--events 100000] [--data DIR] [--source
remote|data] [--repeat 3] [--profile] [--cold]`. Prints one JSON object. The ledger comes from the
ledger benchmark's generator (`bench_ledger.make_events`), written as a data-branch directory with
its derived files (the fold cache included); `--data` keeps it there for later runs. With `--source
remote` (the default) the report reads it as a data branch (`--remote`, a bare repository made from
the directory), with `--source data` as a checkout (`--data`). Each report is the CLI in a fresh
process, with Python's bytecode cache on: wall seconds, CPU seconds of it and its page workers,
peak memory, and the machine's load average when it ended. After the new event (a rating on an
existing job) it counts the files of the site whose bytes changed, and checks that the incremental
site and a `--full` rebuild are the same files with the same bytes (`SOURCE_DATE_EPOCH` fixes the
report's "now" for both). `--repeat N` appends and reports N times (each run listed, the median CPU
given); `--profile` adds one more under cProfile and lists where its time went (cumulative seconds
of the report's steps, profiler overhead included: read them as shares). `--cold` makes only cold
reports (`--repeat` of them, each into an empty folder, the median CPU given), and `--profile` then
profiles one more cold report.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bench_ledger import make_events, shard_texts

from rubricate.ledger.backends import DataBranchStore, DirectoryStore
from rubricate.ledger.event import Event
from rubricate.ledger.trust import natural_key


def seed(data: Path, count: int) -> list[Event]:
    """An N-event data directory with every derived file (kept when it is there already)."""
    events = make_events(count)
    if not (data / "reputation.json").exists():
        for path, text in shard_texts(events).items():
            (data / path).parent.mkdir(parents=True, exist_ok=True)
            (data / path).write_text(text, encoding="utf-8")
        with DirectoryStore(str(data)) as store:
            store.rebuild()
    return events


def as_remote(data: Path, remote: Path) -> None:
    """A bare repository whose branch `rubricate-data` holds the directory's files."""
    if remote.exists():
        return
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", "-C", str(data)]
    subprocess.run([*git, "init", "-q", "-b", "rubricate-data"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "seed"], check=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(data), str(remote)], check=True)


def one_more(data: Path, events: list[Event], remote: Path | None = None) -> None:
    """Append one rating to the newest job."""
    last = events[-1]
    delivery = f"bench-{time.time_ns()}"
    values = {
        **last.model_dump(exclude_none=True),
        "kind": "rated",
        "rating": 4,
        "actor": "bench-rater",
        "actor_role": "maintain",
        "at": last.at + timedelta(minutes=1),
        "delivery": delivery,
        "id": natural_key("rated", last.repo, last.pr, last.version, delivery),
    }
    for field in ("scores", "rubric", "gate", "deadline", "source", "evidence"):
        values.pop(field, None)
    event = Event.model_validate(values)
    if remote is not None:
        with DataBranchStore(str(remote)) as branch:
            branch.append([event])
        return
    with DirectoryStore(str(data)) as store:
        store.append([event])


STEPS = {
    "imports and arguments": "cli/main.py:build_parser",
    "optional extra's imports": "report_checks.py:require_extra",
    "fold cache (load_cache)": "ledger/cache.py:load_cache",
    "ledger lines parsed (parse_in_parallel)": "report/pool.py:parse_in_parallel",
    "jobs folded, parts made (parsed_sources)": "report/model.py:parsed_sources",
    "reputation series (author_series)": "report/model.py:author_series",
    "page inputs' digests": "report/workers.py:_digest",
    "canonical JSON": "report/kept_json.py:canonical",
    "git reads": "gitio/workspace.py:read_blobs",
    "reuse state read (take_state)": "report/reuse.py:take_state",
    "changed jobs (refreshed)": "report/refresh.py:refreshed",
    "document (assemble)": "report/model.py:assemble",
    "summary over every row": "report/scores.py:summary",
    "weights over every job": "report/scores.py:weights_section",
    "site (write_site)": "report/site.py:write_site",
    "sorted author tables": "report/pages.py:sort_pages",
    "report.json": "report/files.py:write_json",
    "reuse state write (save_state)": "report/reuse.py:save_state",
}
"""Steps of a report, by the end of their file's path and their function's name."""


def report(
    source: list[str], out: Path, *extra: str, profile: Path | None = None
) -> dict[str, Any]:
    """One `rubricate report` run: wall, CPU, peak memory."""
    python = [sys.executable, "-m", "cProfile", "-o", str(profile)] if profile else [sys.executable]
    command = [*python, "-m", "rubricate", "report", *source, "--out", str(out)]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["SOURCE_DATE_EPOCH"] = "1767225600"
    started = time.perf_counter()
    process = subprocess.Popen([*command, *extra], stdout=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(command)} failed")
    return {
        "wall_s": round(time.perf_counter() - started, 2),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }


def steps(profile: Path) -> dict[str, float]:
    """Cumulative seconds of each of `STEPS` in a profile, and the whole run's."""
    stats = pstats.Stats(str(profile)).stats  # type: ignore[attr-defined]
    found = {"whole run": round(max(row[3] for row in stats.values()), 3)}
    for name, key in STEPS.items():
        times = [row[3] for (path, _, func), row in stats.items() if f"{path}:{func}".endswith(key)]
        found[name] = round(sum(times), 3)
    return found


def digests(out: Path) -> dict[str, str]:
    """Every file of a site (hidden state files too) → sha256."""
    return {
        p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(out.rglob("*"))
        if p.is_file()
    }


def colds(args: argparse.Namespace, source: list[str], root: Path) -> dict[str, Any]:
    """`--repeat` cold reports, each into an empty folder (and one more profiled)."""
    runs = []
    for n in range(max(1, args.repeat)):
        runs.append(report(source, root / f"cold-{n}"))
        shutil.rmtree(root / f"cold-{n}")
    result: dict[str, Any] = {
        "events": args.events,
        "source": args.source,
        "cold": {**runs[-1], "cpu_s_median": statistics.median(r["cpu_s"] for r in runs)},
        "runs": runs,
        "goals": {"cold_s": 10.0},
    }
    if args.profile:
        report(source, root / "cold-profiled", profile=root / "profile")
        result["profile_cold_s"] = steps(root / "profile")
    return result


def main() -> None:
    """Seed, report cold, append one event, report again, rebuild in full; print JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--data", type=Path, help="keep the data directory here")
    parser.add_argument("--source", choices=("remote", "data"), default="remote")
    parser.add_argument("--repeat", type=int, default=1, help="reports after one event each")
    parser.add_argument("--profile", action="store_true", help="profile one more such report")
    parser.add_argument("--cold", action="store_true", help="only cold reports (no state)")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="rubricate-report-incr-"))
    try:
        data = args.data or root / "data"
        data.mkdir(parents=True, exist_ok=True)
        events = seed(data, args.events)
        remote = None
        source = ["--data", str(data)]
        if args.source == "remote":
            remote = data.parent / f"{data.name}.git"
            as_remote(data, remote)
            source = ["--remote", str(remote)]
        site, full = root / "site", root / "full"
        report(source, root / "warm-up")  # the bytecode cache, written once
        if args.cold:
            print(json.dumps(colds(args, source, root), indent=2))
            return
        cold = report(source, site)
        before = digests(site)
        runs = []
        for _ in range(max(1, args.repeat)):
            one_more(data, events, remote)
            runs.append(report(source, site))
        after = digests(site)
        warm = {**runs[-1], "cpu_s_median": statistics.median(r["cpu_s"] for r in runs)}
        rebuilt = report(source, full, "--full")
        shown = {k: v for k, v in after.items() if not k.startswith(".")}
        same = shown == {k: v for k, v in digests(full).items() if not k.startswith(".")}
        profiled = None
        if args.profile:  # one more, as the runs above (after `same` was taken)
            one_more(data, events, remote)
            report(source, site, profile=root / "profile")
            profiled = steps(root / "profile")
        changed = sorted(p for p in after if before.get(p) != after[p])
        result = {
            "events": args.events,
            "source": args.source,
            "cold": cold,
            "after_one_event": {
                **warm,
                "runs": runs,
                "files": len(after),
                "files_changed": len(changed),
                "changed": changed[:20],
            },
            "full": rebuilt,
            "identical_to_full": same,
            "goals": {"after_one_event_s": 2.0, "cold_s": 10.0},
        }
        if profiled is not None:
            result["profile_after_one_event_s"] = profiled
        print(json.dumps(result, indent=2))
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
