"""Incremental report benchmark: `rubricate report` on an N-event data branch, cold, then after
one new event (reusing the last report), then with `--full`.

Run: `python benchmarks/bench_report_incremental.py [--events 100000] [--data DIR]`. Prints one
JSON object. The ledger comes from the ledger benchmark's generator (`bench_ledger.make_events`),
written as a data-branch directory with its derived files (the fold cache included); `--data`
keeps it there for later runs. Each report is the CLI in a fresh process: wall seconds, CPU
seconds of it and its page workers, peak memory. After the new event (a rating on an existing
job) it counts the files of the site whose bytes changed, and checks that the incremental site
and a `--full` rebuild are the same files with the same bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bench_ledger import make_events, shard_texts

from rubricate.ledger.backends import DirectoryStore
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


def one_more(data: Path, events: list[Event]) -> None:
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
    with DirectoryStore(str(data)) as store:
        store.append([Event.model_validate(values)])


def report(data: Path, out: Path, *extra: str) -> dict[str, Any]:
    """One `rubricate report` run: wall, CPU, peak memory."""
    command = [sys.executable, "-m", "rubricate", "report", "--data", str(data), "--out", str(out)]
    started = time.perf_counter()
    process = subprocess.Popen([*command, *extra], stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(command)} failed")
    return {
        "wall_s": round(time.perf_counter() - started, 2),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
    }


def digests(out: Path) -> dict[str, str]:
    """Every file of a site (hidden state files too) → sha256."""
    return {
        p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(out.rglob("*"))
        if p.is_file()
    }


def main() -> None:
    """Seed, report cold, append one event, report again, rebuild in full; print JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--data", type=Path, help="keep the data directory here")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="rubricate-report-incr-"))
    try:
        data = args.data or root / "data"
        data.mkdir(parents=True, exist_ok=True)
        events = seed(data, args.events)
        site, full = root / "site", root / "full"
        cold = report(data, site)
        before = digests(site)
        one_more(data, events)
        warm = report(data, site)
        after = digests(site)
        rebuilt = report(data, full, "--full")
        shown = {k: v for k, v in after.items() if not k.startswith(".")}
        changed = sorted(p for p in after if before.get(p) != after[p])
        result = {
            "events": args.events,
            "cold": cold,
            "after_one_event": {
                **warm,
                "files": len(after),
                "files_changed": len(changed),
                "changed": changed[:20],
            },
            "full": rebuilt,
            "identical_to_full": shown
            == {k: v for k, v in digests(full).items() if not k.startswith(".")},
            "goals": {"after_one_event_s": 2.0, "cold_s": 10.0},
        }
        print(json.dumps(result, indent=2))
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
