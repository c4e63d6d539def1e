"""Benchmark: what an event that needs nothing costs `rubricate action`. Prints JSON.

Comments and reviews whose visible text holds no rubricate command, built on GitHub's real
webhook payloads in `../shared/github/webhooks/` (the real `issue_comment` on a PR as it is,
then with other bodies; a `pull_request_review.submitted` made of the real `pull_request.opened`
payload's PR, repository and sender plus a review). Each runs `python -m rubricate action` in a
fresh process, as the Action does, with a token, the API pointed at a loopback server that
counts every request, and `git` on PATH replaced by a wrapper that counts every git process.
Reported per event: exit code, REST calls, git processes, log lines, and the wall time of the
whole process and its CPU time (user + system), best and median of the repeats, the
interpreter's own start-up included. The machine's load average is printed with them.

Usage: python benchmarks/bench_ignored_events.py [--repeat N] [--webhooks DIR]
"""

from __future__ import annotations

import argparse
import copy
import http.server
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, ClassVar

ROOT = Path(__file__).resolve().parents[1]
WEBHOOKS = ROOT.parent / "shared" / "github" / "webhooks"
LIMIT_S = 0.3
BODIES = {
    "empty": "",
    "looks good": "Looks good to me",
    "url with slashes": "See https://github.com/octo/widgets/pull/7/files and /tmp/x/y",
    "command in a code block": "Try this:\n\n```\n/approve spec=4\n```",
    "command in details": "<details><summary>notes</summary>\n\n/approve spec=4\n\n</details>",
}


class _Counter(http.server.BaseHTTPRequestHandler):
    calls: ClassVar[list[str]] = []

    def _any(self) -> None:
        _Counter.calls.append(f"{self.command} {self.path}")
        self.send_response(500)
        self.end_headers()

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _any

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


def _payloads(webhooks: Path) -> dict[str, tuple[str, dict[str, Any]]]:
    comment = json.loads((webhooks / "issue_comment.created.pull_request.json").read_text())
    opened = json.loads((webhooks / "pull_request.opened.json").read_text())
    events: dict[str, tuple[str, dict[str, Any]]] = {
        "issue_comment (real body)": ("issue_comment", comment)
    }
    for name, body in BODIES.items():
        varied = copy.deepcopy(comment)
        varied["comment"]["body"] = body
        events[f"issue_comment ({name})"] = ("issue_comment", varied)
        events[f"pull_request_review ({name})"] = ("pull_request_review", _review(opened, body))
    return events


def _review(opened: dict[str, Any], body: str) -> dict[str, Any]:
    pr = opened["pull_request"]
    review = {
        "id": 80,
        "node_id": "MDE3OlB1bGxSZXF1ZXN0UmV2aWV3ODA=",
        "user": opened["sender"],
        "body": body or None,
        "commit_id": pr["head"]["sha"],
        "submitted_at": pr["updated_at"],
        "state": "commented",
        "author_association": "OWNER",
    }
    return {
        "action": "submitted",
        "review": review,
        "pull_request": pr,
        "repository": opened["repository"],
        "sender": opened["sender"],
    }


def _git_wrapper(directory: Path, log: Path) -> None:
    real = shutil.which("git") or "/usr/bin/git"
    script = directory / "git"
    script.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\nexec "{real}" "$@"\n')
    script.chmod(0o755)


def _run(event: str, payload: dict[str, Any], tmp: Path, port: int) -> dict[str, Any]:
    path = tmp / "event.json"
    path.write_text(json.dumps(payload))
    git_log = tmp / "git.log"
    git_log.write_text("")
    _Counter.calls = []
    env = {
        **os.environ,
        "PATH": f"{tmp}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(ROOT / "src"),
        "GITHUB_EVENT_NAME": event,
        "GITHUB_EVENT_PATH": str(path),
        "GITHUB_TOKEN": "ghs_benchmarkbenchmarkbenchmark",
        "GITHUB_API_URL": f"http://127.0.0.1:{port}",
        "GITHUB_REPOSITORY": payload["repository"]["full_name"],
    }
    for key in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS"):
        env.pop(key, None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "rubricate", "action"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    log = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    return {
        "exit_code": proc.returncode,
        "rest_calls": len(_Counter.calls),
        "git_processes": len(git_log.read_text().splitlines()),
        "log_lines": len(log),
        "log": log[:3],
        "wall_s": wall,
        "cpu_s": cpu,
    }


def main(argv: list[str] | None = None) -> int:
    """Run every ignorable event `--repeat` times and print the JSON summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--webhooks", type=Path, default=WEBHOOKS)
    args = parser.parse_args(argv)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Counter)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    rows = []
    with tempfile.TemporaryDirectory(prefix="rubricate-ignored-") as tmp_name:
        tmp = Path(tmp_name)
        _git_wrapper(tmp, tmp / "git.log")
        for name, (event, payload) in _payloads(args.webhooks).items():
            runs = [_run(event, payload, tmp, server.server_address[1]) for _ in range(args.repeat)]
            times = [r["wall_s"] for r in runs]
            row = {k: v for k, v in runs[-1].items() if k not in ("wall_s", "cpu_s")}
            row.update(
                event=name,
                rest_calls=max(r["rest_calls"] for r in runs),
                git_processes=max(r["git_processes"] for r in runs),
                best_wall_s=round(min(times), 3),
                median_wall_s=round(statistics.median(times), 3),
                best_cpu_s=round(min(r["cpu_s"] for r in runs), 3),
            )
            rows.append(row)
    server.shutdown()
    ok = all(r["exit_code"] == 0 and r["rest_calls"] == 0 and r["git_processes"] == 0 for r in rows)
    result = {
        "benchmark": "ignored_events",
        "inputs": str(args.webhooks),
        "repeat": args.repeat,
        "limit_s": LIMIT_S,
        "events": rows,
        "all_zero_calls_zero_git_exit_0": ok,
        "worst_best_wall_s": max(r["best_wall_s"] for r in rows),
        "worst_median_wall_s": max(r["median_wall_s"] for r in rows),
        "worst_best_cpu_s": max(r["best_cpu_s"] for r in rows),
        "cpu_count": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }
    print(json.dumps(result, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
