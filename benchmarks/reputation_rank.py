"""Who reaches the top of the reputation table: by `ranked` against by raw `reputation`.

Run: `python benchmarks/reputation_rank.py --history GIT_DIR [--top 50] [--prior-jobs 3,5]`.
The ledger is shaped by a real repository's history (`bench_ledger.history_events`: five events
for each squash-merged pull request, by its real author at its real time). Prints one JSON
object: for each order, how many of the top N authors have one or two jobs, and how many are
provisional.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bench_ledger import history_events

from rubricate.ledger.reputation import compute_reputation
from rubricate.ledger.reputation_config import ReputationConfig


def top_counts(authors: dict[str, Any], key: str, top: int) -> dict[str, Any]:
    """How many of the top `top` authors by `key` have one or two jobs, or are provisional."""
    ranked = sorted(
        (a for a in authors.values() if a[key] is not None), key=lambda a: -float(a[key])
    )[:top]
    jobs = [sum(a["jobs"].values()) for a in ranked]
    return {
        "one_or_two_jobs": sum(1 for n in jobs if n <= 2),
        "provisional": sum(1 for a in ranked if a["provisional"]),
        "median_jobs": sorted(jobs)[len(jobs) // 2] if jobs else 0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--history", type=Path, required=True, help="a git directory")
    parser.add_argument("--top", type=int, default=50)
    parser.add_argument("--prior-jobs", default="5", help="comma-separated priors to compare")
    args = parser.parse_args()
    events = history_events(args.history)
    results: dict[str, Any] = {"repository": str(args.history), "events": len(events)}
    for prior in (float(p) for p in args.prior_jobs.split(",")):
        document = compute_reputation(events, ReputationConfig(prior_jobs=prior))
        authors = document["repos"]["o/r"]["authors"]
        results["authors"] = len(authors)
        few = sum(1 for a in authors.values() if sum(a["jobs"].values()) <= 2)
        results["authors_with_one_or_two_jobs"] = few
        results[f"prior_jobs={prior:g}"] = {
            "by_reputation": top_counts(authors, "reputation", args.top),
            "by_ranked": top_counts(authors, "ranked", args.top),
        }
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
