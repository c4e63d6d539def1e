"""The report's own steps on a ledger, in one process: every author's reputation series
(`model.each_series`) and every author page (`author_page.author_pages`).

Run: `python benchmarks/bench_report_parts.py DATA_DIR [--repeat 3]`, DATA_DIR a data-branch
checkout (say the one `bench_report_incremental.py --data DIR` keeps). Prints one JSON object:
the CPU seconds of each step (each run listed, and the lowest), with garbage collection paused
as the report pauses it, and a digest of what each step made, so two checkouts can be compared
(`PYTHONPATH=OTHER/src python benchmarks/bench_report_parts.py …`): the same digests mean the
same series and pages.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rubricate.ledger.codec import combine_shards, parse_shard
from rubricate.ledger.fold import fold_jobs
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.report import author_page
from rubricate.report.model import Options, build_report, each_series

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)


def timed(step: Callable[[], str], repeat: int) -> dict[str, Any]:
    """CPU seconds of `step` (garbage collection paused) over `repeat` runs, and its digest."""
    runs, digest = [], ""
    for _ in range(repeat):
        gc.disable()
        started = time.process_time()
        digest = step()
        runs.append(round(time.process_time() - started, 3))
        gc.enable()
    return {"cpu_s": min(runs), "runs": runs, "sha256": digest}


def main() -> None:
    """Read the ledger once, then time each step."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("data", type=Path, help="a data-branch checkout")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    shards = sorted((args.data / "ledger").glob("*.jsonl"))
    parsed = combine_shards(
        parse_shard(f"ledger/{p.name}", p.read_text(encoding="utf-8")) for p in shards
    )
    config = ReputationConfig()
    folded = {key: job.facts for key, job in fold_jobs(parsed.events).items()}
    report = build_report(parsed, config, Options(now=NOW))
    gc.freeze()  # what was read lives to the end, as in a report

    def series() -> str:
        made = list(each_series(parsed.events, config, folded))
        return hashlib.sha256(json.dumps(made, sort_keys=True).encode()).hexdigest()

    def pages() -> str:
        digest = hashlib.sha256()
        for name, text in author_page.author_pages(report):
            digest.update(f"{name}\n{text}".encode())
        return digest.hexdigest()

    result = {
        "events": len(parsed.events),
        "authors": len(report["authors"]),
        "series": timed(series, args.repeat),
        "author_pages": timed(pages, args.repeat),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
