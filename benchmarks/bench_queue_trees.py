"""How often a merge queue entry's tree is git's three-way merge of its start with the PR's head.

The merge queue gate (`rubricate.bot.merge_queue`) accepts an entry only when its tree equals
`git merge-tree --write-tree <start> <approved head>`. On a real repository's history this
measures, for the pull-request merge commits on the first-parent line:

- merge method: the merge commit's tree against the merge of its two parents (computed by
  `rubricate.gitio.refs.merged_tree`, the gate's own function);
- rebase method: the PR's commits replayed with `git cherry-pick` onto the first parent (as a
  rebase merge does) against that same merge, for PRs without merge commits of their own.

A difference is a group that fails closed although its content is the PR's (a false failure).

    python benchmarks/bench_queue_trees.py /path/to/repo.git [--limit 300] [--rebase-limit 60]

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rubricate.gitio.refs import merged_tree

MERGE_SUBJECT = re.compile(r"^Merge pull request #[0-9]+ from ")


def git(repo: Path | str, *args: str, check: bool = True) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=check, timeout=300
    )
    return done.stdout.strip()


def pr_merges(repo: str, limit: int) -> list[tuple[str, str, str, str]]:
    """(merge, first parent, second parent, tree) of the newest PR merge commits."""
    out = git(repo, "log", "--first-parent", "--merges", "--format=%H %P %T %s", "HEAD")
    found = []
    for line in out.splitlines():
        sha, p1, p2, tree, subject = (line.split(" ", 4) + [""] * 5)[:5]
        if MERGE_SUBJECT.match(subject) and len(p2) == 40 and len(tree) == 40:
            found.append((sha, p1, p2, tree))
        if len(found) >= limit:
            break
    return found


def replayed_tree(work: Path, start: str, head: str) -> str | None:
    """The tree after cherry-picking the PR's commits onto `start` (None: a conflict)."""
    base = git(work, "merge-base", start, head)
    git(work, "checkout", "--quiet", "--detach", start)
    picked = subprocess.run(
        ["git", "cherry-pick", "--allow-empty", "--keep-redundant-commits", f"{base}..{head}"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if picked.returncode != 0:
        git(work, "cherry-pick", "--abort", check=False)
        return None
    return git(work, "rev-parse", "HEAD^{tree}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", help="a git repository (bare or not)")
    parser.add_argument("--limit", type=int, default=300)
    parser.add_argument("--rebase-limit", type=int, default=60)
    args = parser.parse_args()
    repo = args.repo
    merges = pr_merges(repo, args.limit)
    started = time.perf_counter()
    merge_equal = [merged_tree(repo, p1, p2) == tree for _, p1, p2, tree in merges]
    merge_seconds = time.perf_counter() - started
    rebase = {"equal": 0, "differ": 0, "conflict": 0, "skipped_with_merges": 0}
    with tempfile.TemporaryDirectory(prefix="bench-queue-") as tmp:
        work = Path(tmp) / "work"
        git(tmp, "clone", "--quiet", "--shared", "--no-checkout", str(Path(repo).resolve()), "work")
        git(work, "config", "user.name", "bench")
        git(work, "config", "user.email", "bench@example.com")
        for _, p1, p2, _ in merges[: args.rebase_limit]:
            base = git(work, "merge-base", p1, p2)
            if git(work, "rev-list", "--merges", "--count", f"{base}..{p2}") != "0":
                rebase["skipped_with_merges"] += 1
                continue
            expected = merged_tree(work, p1, p2)
            got = replayed_tree(work, p1, p2)
            key = "conflict" if got is None else ("equal" if got == expected else "differ")
            rebase[key] += 1
    result = {
        "repo": repo,
        "head": git(repo, "rev-parse", "HEAD"),
        "pr_merge_commits": len(merges),
        "merge_method_tree_equal": sum(merge_equal),
        "merge_method_tree_differ": len(merge_equal) - sum(merge_equal),
        "merge_check_ms_per_entry": round(1000 * merge_seconds / max(len(merges), 1), 2),
        "rebase_method": rebase,
    }
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
