"""Score the last merged pull requests of real repositories as `rubricate score` does.

Usage: `python benchmarks/real_prs.py REPO_DIR... [--last N] [--json] [--details FILE]`

Each REPO_DIR is a git repository (bare or not; only its commits are read). Walking the
first-parent history of HEAD, a merged pull request is either a merge commit whose subject
starts `Merge pull request #N` (base `^1`, head `^2`) or a commit whose subject ends `(#N)`
(a squash merge: base `^`, head the commit). The last N of them are scored through the CLI's
own entry point, `rubricate score --repo DIR --base BASE --head HEAD --judge none --no-graders
--format json`, so the numbers are what a user of that command sees: the config and rubric at
the base (defaults when there is none), the commit log as the PR body, no spec.

Printed per repository and in all: merged PRs scored, decided fails (verdict `fail`, decided
by the heuristics alone), findings (warnings and errors of the scoring checks; `inputs` info
findings are not counted) by kind, how many of them are certain, findings per PR, and seconds
per PR (wall clock of the whole command, git included). `--details FILE` writes every PR's
verdict and findings (path, line, message) as JSON, to read them against their diffs.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rubricate.cli.main import main as rubricate_main

MERGE_SUBJECT = re.compile(r"^Merge pull request #(\d+)\b")
SQUASH_SUBJECT = re.compile(r"\(#(\d+)\)\s*$")
SCAN_LIMIT = 5000
"""First-parent commits looked at per repository, at most."""
COUNTED_CHECKS = ("format", "verifiability", "completeness", "spec_adherence")
KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("tests", re.compile(r"without a test change")),
    ("sources", re.compile(r"prose added without links")),
    ("pinned dependencies", re.compile(r"without a lockfile")),
    ("checksums", re.compile(r"without checksums")),
    ("seeds", re.compile(r"randomness without a seed")),
    ("marker", re.compile(r"^(TODO|FIXME|XXX) marker")),
    ("placeholder text", re.compile(r"^stub or placeholder")),
    ("not implemented", re.compile(r"^not implemented")),
    ("empty body", re.compile(r"has an empty body")),
    ("empty file", re.compile(r"^the file is empty")),
    ("truncated", re.compile(r"^truncated\?")),
    ("does not parse", re.compile(r"does not parse")),
    ("empty change", re.compile(r"^the change is empty")),
)


def merged_prs(repo: Path, last: int) -> list[dict[str, str]]:
    """The last `last` merged pull requests on HEAD's first-parent history, newest first."""
    out = subprocess.run(
        [
            *("git", "--git-dir", str(_git_dir(repo)), "log", "--first-parent"),
            *(f"-n{SCAN_LIMIT}", "-z", "--format=%H%x01%P%x01%s", "HEAD"),
        ],
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8", "replace")
    found: list[dict[str, str]] = []
    for record in out.split("\0"):
        if len(found) >= last or not record.strip():
            continue
        sha, parents, subject = record.strip("\n").split("\x01", 2)
        parent_list = parents.split()
        merge = MERGE_SUBJECT.match(subject)
        squash = SQUASH_SUBJECT.search(subject)
        if len(parent_list) == 2 and merge:
            found.append(_pr(sha, f"{sha}^1", f"{sha}^2", merge.group(1), subject))
        elif len(parent_list) == 1 and squash:
            found.append(_pr(sha, f"{sha}^", sha, squash.group(1), subject))
    return found


def _pr(commit: str, base: str, head: str, number: str, subject: str) -> dict[str, str]:
    return {"commit": commit, "base": base, "head": head, "number": number, "subject": subject}


def _git_dir(repo: Path) -> Path:
    return repo / ".git" if (repo / ".git").exists() else repo


def score(repo: Path, pr: dict[str, str]) -> tuple[int, dict[str, Any] | None, str]:
    """Exit code, JSON report (None when it printed none) and stderr of `rubricate score`."""
    argv = ["score", "--repo", str(repo), "--base", pr["base"], "--head", pr["head"]]
    argv += ["--judge", "none", "--no-graders", "--format", "json"]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = rubricate_main(argv)
    try:
        report = json.loads(out.getvalue())
    except json.JSONDecodeError:
        report = None
    return code, report, err.getvalue()


def kind_of(check: str, finding: dict[str, Any]) -> str:
    """The finding's rule (its `rule` field when the report has one, else from its message)."""
    if finding.get("rule"):
        return str(finding["rule"])
    message = str(finding.get("message", ""))
    for kind, pattern in KINDS:
        if pattern.search(message):
            return kind
    return f"{check}: other"


def findings_of(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The warnings and errors of the scoring checks, each with its check and kind."""
    found: list[dict[str, Any]] = []
    for check in report.get("checks", []):
        if check.get("id") not in COUNTED_CHECKS:
            continue
        for finding in check.get("findings", []):
            if finding.get("severity") in ("warning", "error"):
                kind = kind_of(check["id"], finding)
                found.append({**finding, "check": check["id"], "certainty": finding.get("kind")})
                found[-1]["kind"] = kind
    return found


def run_repository(repo: Path, last: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Score one repository's last merged PRs: its summary and the per-PR details."""
    details: list[dict[str, Any]] = []
    tally = Tally(str(repo))
    for pr in merged_prs(repo, last):
        start = time.perf_counter()
        code, report, err = score(repo, pr)
        tally.seconds += time.perf_counter() - start
        if report is None:
            tally.errors += 1
            details.append({**pr, "exit": code, "error": err.strip()[-500:]})
            continue
        findings = findings_of(report)
        tally.kinds.update(f["kind"] for f in findings)
        tally.certain.update(f["kind"] for f in findings if f.get("certainty") == "certain")
        decided_fail = report["verdict"] == "fail" and bool(report.get("decided", True))
        tally.prs += 1
        tally.fails += decided_fail
        scores = {c["id"]: c["score"] for c in report["criteria"]}
        details.append(
            {**pr, "verdict": report["verdict"], "decided_fail": decided_fail}
            | {"scores": scores, "failed": report["failed"], "findings": findings}
        )
    return tally.summary(), details


@dataclass
class Tally:
    """Counts for one repository, or for all."""

    name: str
    prs: int = 0
    fails: int = 0
    errors: int = 0
    seconds: float = 0.0
    kinds: Counter[str] = field(default_factory=Counter)
    certain: Counter[str] = field(default_factory=Counter)

    def add(self, row: dict[str, Any]) -> None:
        """Add one repository's summary."""
        self.prs += row["prs"]
        self.fails += row["decided_fails"]
        self.errors += row["errors"]
        self.seconds += row["seconds"]
        self.kinds.update(row["findings_by_kind"])
        self.certain.update(row["certain_by_kind"])

    def summary(self) -> dict[str, Any]:
        """The printed summary."""
        prs = self.prs
        findings = sum(self.kinds.values())
        return {
            "repository": self.name,
            "prs": prs,
            "errors": self.errors,
            "decided_fails": self.fails,
            "fail_share": round(self.fails / prs, 4) if prs else None,
            "findings": findings,
            "certain_findings": sum(self.certain.values()),
            "findings_per_pr": round(findings / prs, 3) if prs else None,
            "findings_by_kind": dict(self.kinds.most_common()),
            "certain_by_kind": dict(self.certain.most_common()),
            "seconds_per_pr": round(self.seconds / (prs + self.errors), 3) if prs else None,
            "seconds": round(self.seconds, 3),
        }


def total(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """All repositories together."""
    tally = Tally("all")
    for row in rows:
        tally.add(row)
    return tally.summary()


def table(rows: list[dict[str, Any]]) -> str:
    """A plain-text table of the summaries."""
    lines = [
        f"{'repository':<30} {'PRs':>4} {'fails':>5} {'findings':>8} {'certain':>7}"
        f" {'/PR':>6} {'s/PR':>6}"
    ]
    for row in rows:
        name = Path(row["repository"]).parent.name or row["repository"]
        lines.append(
            f"{name[:30]:<30} {row['prs']:>4} {row['decided_fails']:>5} {row['findings']:>8}"
            f" {row['certain_findings']:>7}"
            f" {row['findings_per_pr'] or 0:>6.2f} {row['seconds_per_pr'] or 0:>6.2f}"
            + (f"  by kind: {row['findings_by_kind']}" if row["findings_by_kind"] else "")
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark over every repository given."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="+", metavar="REPO_DIR", type=Path)
    parser.add_argument("--last", type=int, default=25, metavar="N")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--details", type=Path, metavar="FILE", help="write per-PR findings")
    args = parser.parse_args(argv)
    rows: list[dict[str, Any]] = []
    details: list[dict[str, Any]] = []
    for repo in args.repos:
        if not repo.is_dir():
            print(f"real_prs: not a directory: {repo}", file=sys.stderr)
            return 2
        row, found = run_repository(repo, args.last)
        rows.append(row)
        details.extend({"repository": str(repo), **pr} for pr in found)
    rows.append(total(rows))
    if args.details:
        args.details.write_text(json.dumps(details, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(rows, indent=2) if args.json else table(rows), end="\n" if args.json else "")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
