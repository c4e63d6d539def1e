"""Report benchmarks: `rubricate report --format html` on N synthetic events; page weight; cold
install of `rubricate[report]` against the core install with uv.

Run: `python benchmarks/report_bench.py [--sizes 1000,10000,100000] [--repeat N] [--against
OTHER_CHECKOUT] [--no-install] [--history GIT_DIR]`. Prints one JSON object. Events come from the
ledger benchmark's generator (`bench_ledger.make_events`), written once per size as a data-branch
directory; each run is the CLI in a fresh process (wall seconds, CPU seconds of it and its page
workers, and the peak memory of the largest of them). With `--repeat`, each size runs N times and
every number is given as `[min, max]`. With `--against`, each run of this checkout is followed by
one of the other checkout (its `src/`, e.g. a `git archive` of an older commit) on the same data,
under `before`: on a shared machine, alternating runs see the same load. Page weight: `index.html`,
the largest author page and the whole site. The install part builds rubricate's wheel and installs
it with uv into an empty virtual environment with an empty cache (downloads included), once bare
and once with `[report]`. With `--history`, also a ledger shaped by a real repository (say a `git
clone --bare` of a busy project): five events for each squash-merged pull request, by its real
author at its real time, so authors are as unevenly busy as in life (`--sizes ""` skips the
synthetic sizes).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bench_install import build_wheel, network_env, tool
from bench_ledger import history_events, make_events, shard_texts

from rubricate.ledger.event import Event

KB = 1024


def bench_size(size: int, root: Path, repeat: int = 1, against: Path | None = None) -> Any:
    """Write N synthetic events as a data directory, run the report CLI on it, weigh the pages."""
    return bench_events(make_events(size), root / f"data-{size}", repeat, against)


def bench_events(
    events: list[Event], data: Path, repeat: int = 1, against: Path | None = None
) -> Any:
    """Write events as a data directory, run the report CLI on it, weigh the pages."""
    for path, text in shard_texts(events).items():
        target = data / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    sides = {"after": Path(__file__).resolve().parents[1] / "src"}
    if against is not None:
        sides["before"] = against / "src"
    runs: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
    for _ in range(repeat):
        for side, src in sides.items():
            runs[side].append(_run(data, data.parent / f"site-{data.name}-{side}", src))
    merged = {side: _span(found) for side, found in runs.items()}
    return merged if against is not None else merged["after"]


def _run(data: Path, out: Path, src: Path) -> dict[str, Any]:
    shutil.rmtree(out, ignore_errors=True)
    command = [sys.executable, "-m", "rubricate", "report", "--data", str(data), "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(src)}
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)  # this run's own CPU and peak memory
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise subprocess.CalledProcessError(process.returncode, command)
    authors = sorted((out / "authors").glob("*.html"), key=lambda p: p.stat().st_size)
    files = [p for p in out.rglob("*") if p.is_file()]
    return {
        "events": sum(1 for p in data.rglob("*.jsonl") for _ in p.open(encoding="utf-8")),
        "report_html_s": round(wall, 2),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "author_pages": len(authors),
        "index_kb": round((out / "index.html").stat().st_size / KB, 1),
        "largest_author_page_kb": round(authors[-1].stat().st_size / KB, 1) if authors else 0,
        "report_json_kb": round((out / "report.json").stat().st_size / KB, 1),
        "site_kb": round(sum(p.stat().st_size for p in files) / KB, 1),
    }


def _span(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One run as it is; several as `[min, max]` of each number."""
    if len(runs) == 1:
        return runs[0]
    return {key: [min(r[key] for r in runs), max(r[key] for r in runs)] for key in runs[0]}


def bench_install(root: Path) -> dict[str, Any]:
    """Cold uv installs of the built wheel: core, then with the report extra."""
    uv = tool("uv")
    if uv is None:
        return {"skipped": "uv is not installed"}
    wheel = build_wheel(root / "wheel")
    results: dict[str, Any] = {}
    for name, spec in (("core", str(wheel)), ("report", f"{wheel}[report]")):
        venv, cache = root / f"venv-{name}", root / f"cache-{name}"
        subprocess.run([uv, "venv", "--quiet", str(venv)], check=True)
        env = {**network_env(), "PATH": os.environ.get("PATH", ""), "UV_CACHE_DIR": str(cache)}
        started = time.perf_counter()
        subprocess.run(
            [uv, "pip", "install", "--quiet", "--python", str(venv / "bin" / "python"), spec],
            check=True,
            env=env,
        )
        results[f"{name}_install_s"] = round(time.perf_counter() - started, 2)
        results[f"{name}_site_packages_mb"] = round(_size(venv / "lib") / KB / KB, 1)
    return results


def _most_jobs(events: list[Event]) -> int:
    """The jobs of the busiest author."""
    return max(Counter(author for author, _ in {(e.author, e.pr) for e in events}).values())


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main() -> None:
    """Run every size (and the install comparison) and print JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=1, help="runs per size")
    parser.add_argument("--against", type=Path, help="another checkout, run alternately")
    parser.add_argument("--no-install", action="store_true")
    parser.add_argument(
        "--history",
        type=Path,
        metavar="GIT_DIR",
        help="also a ledger shaped by this repository's merged pull requests (authors, times)",
    )
    args = parser.parse_args()
    results: dict[str, Any] = {"goals": {"report_100k_s": 5.0}, "sizes": {}}
    root = Path(tempfile.mkdtemp(prefix="rubricate-report-bench-"))
    try:
        for size in (int(s) for s in args.sizes.split(",") if s):
            results["sizes"][str(size)] = bench_size(size, root, args.repeat, args.against)
        if args.history is not None:
            events = history_events(args.history)
            data = root / "data-history"
            results["history"] = {
                "repository": str(args.history),
                "jobs": len({e.pr for e in events}),
                "authors": len({e.author for e in events}),
                "largest_author_jobs": _most_jobs(events),
                **bench_events(events, data, args.repeat, args.against),
            }
        if not args.no_install:
            results["install"] = bench_install(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
