"""How long reading a branch's history with the lines each commit added takes, and what a
`git diff-tree -p` reading (binary detection on) would have missed.

Run: `python benchmarks/bench_history.py GIT_DIR_OR_URL BRANCH FOLDER`, e.g. on a clone of a
public repository: `python benchmarks/bench_history.py ../requests.git main docs/`. Prints one
JSON object: commits, lines added, seconds for the blob reading (`rubricate.gitio.history`) and
for `diff-tree -p`, and the lines `diff-tree -p` did not show (e.g. in files git calls binary).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter
from pathlib import Path

from rubricate.gitio.history import HISTORY_REF, branch_history
from rubricate.gitio.run import run_git


def patch_lines(repo: Path, folder: str) -> tuple[Counter[str], float]:
    """The added lines of every commit as `git diff-tree -p` prints them, and the seconds."""
    started = time.perf_counter()
    shas = run_git(["rev-list", "--reverse", HISTORY_REF], repo).stdout.decode().split()
    found: Counter[str] = Counter()
    for sha in shas:
        diff = ["diff-tree", "-p", "--root", "--diff-merges=first-parent", "--unified=0"]
        diff += ["--no-color", "--no-ext-diff", "--no-commit-id", sha, "--", folder]
        out = run_git(diff, repo).stdout.decode("utf-8", "surrogateescape")
        found.update(line[1:] for line in out.split("\n") if line[:1] == "+" and line[:4] != "+++ ")
    return found, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("remote")
    parser.add_argument("branch")
    parser.add_argument("folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        dest = Path(tmp) / "history"
        branch_history(args.remote, args.branch, {}, dest, args.folder)  # fetch once
        started = time.perf_counter()
        history = branch_history(args.remote, args.branch, {}, dest, args.folder)
        blob_seconds = time.perf_counter() - started
        blob_lines = Counter(line for commit in history for line in commit[4])
        patch, patch_seconds = patch_lines(dest, args.folder)
    missed = blob_lines - Counter({k: v for k, v in patch.items() if k.strip()})
    print(
        json.dumps(
            {
                "remote": args.remote,
                "branch": args.branch,
                "folder": args.folder,
                "commits": len(history),
                "lines_added": sum(blob_lines.values()),
                "blob_seconds": round(blob_seconds, 2),
                "diff_tree_patch_seconds": round(patch_seconds, 2),
                "lines_diff_tree_patch_did_not_show": sum(missed.values()),
            },
            sort_keys=True,
        )
    )


if __name__ == "__main__":
    main()
