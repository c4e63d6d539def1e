"""Report benchmarks: `rubricate report --format html` on N synthetic events; page weight;
cold install of `rubricate[report]` against the core install with uv.

Run: `python benchmarks/report_bench.py [--sizes 1000,10000,100000] [--no-install]`. Prints one
JSON object. Events come from the ledger benchmark's generator (`bench_ledger.make_events`),
written as a data-branch directory; each size runs the CLI in a fresh process (wall seconds,
with peak memory). Page weight: `index.html`, the largest author page and the whole site.
The install part builds rubricate's wheel and installs it with uv into an empty virtual
environment with an empty cache (downloads included), once bare and once with `[report]`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bench_install import build_wheel, network_env, tool
from bench_ledger import make_events, shard_texts

KB = 1024


def bench_size(size: int, root: Path) -> dict[str, Any]:
    """Write N events as a data directory, run the report CLI on it, weigh the pages."""
    data, out = root / f"data-{size}", root / f"site-{size}"
    for path, text in shard_texts(make_events(size)).items():
        target = data / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    command = [sys.executable, "-m", "rubricate", "report", "--data", str(data), "--out", str(out)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    authors = sorted((out / "authors").glob("*.html"), key=lambda p: p.stat().st_size)
    files = [p for p in out.rglob("*") if p.is_file()]
    return {
        "events": size,
        "report_html_s": round(wall, 2),
        "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 2),
        "peak_rss_mb": round(after.ru_maxrss / 1024, 1),
        "author_pages": len(authors),
        "index_kb": round((out / "index.html").stat().st_size / KB, 1),
        "largest_author_page_kb": round(authors[-1].stat().st_size / KB, 1) if authors else 0,
        "report_json_kb": round((out / "report.json").stat().st_size / KB, 1),
        "site_kb": round(sum(p.stat().st_size for p in files) / KB, 1),
    }


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


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main() -> None:
    """Run every size (and the install comparison) and print JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--no-install", action="store_true")
    args = parser.parse_args()
    results: dict[str, Any] = {"goals": {"report_100k_s": 5.0}, "sizes": {}}
    root = Path(tempfile.mkdtemp(prefix="rubricate-report-bench-"))
    try:
        for size in (int(s) for s in args.sizes.split(",")):
            results["sizes"][str(size)] = bench_size(size, root)
        if not args.no_install:
            results["install"] = bench_install(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
