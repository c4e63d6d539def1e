"""Where one delivery's CPU goes in `rubricate serve` + `rubricate worker`; prints JSON.

    python benchmarks/serve_profile.py [--count N] [--prs P] [--installations I] [--top K]
                                       [--comments F]

The same deliveries as `serve_load.py --rate …` (`serve_faults.plan`: ~10% repeats, about half
of the rest ignorable `labeled` events, the others `opened`/`synchronize` on `--prs` PRs with
their own head commits), the same throw-away PostgreSQL, local git remote and fake GitHub over
HTTP (its limits raised, and each job's installation's pace of writes cleared, so no job waits
for a rate limit). Every step runs in this process, one at a time, under cProfile with a CPU
clock: the receiver's work for each post (signature, classification, the one-transaction insert
and queueing, on one pooled connection), then the jobs the queue holds, in the queue's order
(publish jobs first), through the worker's own `handle_delivery` and `publish_pr`.

With `--comments F`, that share of the PR events on opened PRs are a maintainer's `/score` or
`/approve` comments or scoring reviews instead; their handle jobs are reported as steps of their
own (`handle issue_comment`, `handle pull_request_review`).

It reports, per step (receive, handle, publish): the CPU milliseconds of this thread, of the git
processes it started, of PostgreSQL (the postmaster and every backend, from /proc) and of the
fake GitHub's threads, each per delivery posted and per job; and the cumulative CPU of the
phases inside each step (from the profile), with the `--top` functions by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import resource
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from proc_cpu import postmaster, tree_cpu
from serve_faults import IGNORABLE_FROM, add_mix_arguments, app_key, plan, push_heads
from tests.action.fake_github import FakeGitHub, Limits
from tests.action.scenario import Scenario
from tests.ledger.pg_server import Server, bin_dir, start
from tests.serve.github_http import Routes, serving
from tests.serve.processes import add_app_routes, worker_env

import rubricate.evidence.autoscore  # noqa: F401  (loaded once by a running worker)
from rubricate.errors import RateLimited, RubricateError
from rubricate.ledger.pg_schema import connect, migrate
from rubricate.serve.app_auth import InstallationTokens, read_credentials
from rubricate.serve.context import WorkerContext
from rubricate.serve.handle import handle_delivery
from rubricate.serve.intake import classify, store
from rubricate.serve.publish import publish_pr
from rubricate.serve.queue import HANDLE, PUBLISH, migrate_queue
from rubricate.serve.signature import sign, verify

SECRET = b"serve-profile secret"
COMMAND_EVENTS = ("issue_comment", "pull_request_review")
"""The events of `--comments` (a maintainer's commands), each profiled as its own step."""

PHASES: dict[str, list[tuple[str, str]]] = {
    "receive": [
        ("signature", "rubricate/serve/signature.py:verify"),
        ("classify (json + parse_event)", "rubricate/serve/intake.py:classify"),
        ("store (insert + queue, one transaction)", "rubricate/serve/intake.py:store"),
    ],
    "handle": [
        ("borrow a pooled connection", "rubricate/serve/connections.py:borrow"),
        ("load delivery", "rubricate/serve/handle.py:load"),
        ("PyGithub client", "rubricate/serve/app_auth.py:client"),
        ("installation token", "rubricate/serve/app_auth.py:token"),
        ("action settings", "rubricate/serve/context.py:settings"),
        ("locate", "rubricate/action/gather.py:locate"),
        ("gather", "rubricate/action/gather.py:gather"),
        ("  fetch PR commits (git)", "rubricate/action/pull.py:fetch_pull"),
        ("  read config", "rubricate/action/pull.py:read_config"),
        ("  read rubric", "rubricate/action/pull.py:read_rubric"),
        ("  open job (ledger read)", "rubricate/action/data_branch.py:open_job"),
        ("  linked issues (API)", "rubricate/action/change.py:linked"),
        ("  snapshot (diff, evidence)", "rubricate/action/change.py:snapshot"),
        ("  score head", "rubricate/action/change.py:score_head"),
        ("pure core (handlers)", "rubricate/bot/handlers.py:handle"),
        ("budget record", "rubricate/serve/budget.py:record"),
        ("commit (events, views, tallies, outbox)", "rubricate/serve/handle.py:commit"),
        ("  ledger append (insert + derived + tallies)", "rubricate/ledger/pg_store.py:append"),
        ("  outbox put", "rubricate/serve/outbox.py:put"),
    ],
    "publish": [
        ("PyGithub client", "rubricate/serve/app_auth.py:client"),
        ("outbox pending", "rubricate/serve/outbox.py:pending"),
        ("executor apply (GitHub writes)", "rubricate/action/executor.py:apply"),
        ("budget record", "rubricate/serve/budget.py:record"),
    ],
}
"""The phases reported inside each step: a label and `path-suffix:function`."""


def postgres_cpu(server: Server) -> float:
    """The postmaster's CPU with its reaped backends', plus every live backend's."""
    return tree_cpu(postmaster(server.root / "data"))


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@dataclass
class Step:
    """One step's CPU, summed over its runs, and its profile."""

    runs: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    thread: float = 0.0
    git: float = 0.0
    postgres: float = 0.0
    fake_github: float = 0.0
    profile: cProfile.Profile = field(default_factory=lambda: cProfile.Profile(time.thread_time))


@contextmanager
def measured(step: Step, server: Server) -> Iterator[None]:
    """Add the CPU of the block (this thread, git, PostgreSQL, other threads) to `step`."""
    pg = postgres_cpu(server)  # read first: walking /proc costs this thread's CPU too
    thread, process, git = time.thread_time(), time.process_time(), children_cpu()
    step.profile.enable()
    try:
        yield
    finally:
        step.profile.disable()
        step.runs += 1
        own = time.thread_time() - thread
        step.thread += own
        step.fake_github += time.process_time() - process - own
        step.git += children_cpu() - git
        step.postgres += postgres_cpu(server) - pg  # read last, for the same reason


def run(args: argparse.Namespace) -> dict[str, Any]:
    binaries = bin_dir()
    if binaries is None:
        raise SystemExit("no PostgreSQL binaries: install postgresql")
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="rubricate-profile-") as tmp:
        server = start(binaries)
        try:
            with connect(server.url()) as conn:
                migrate(conn)
                migrate_queue(conn)
            result = _run(args, Path(tmp), server)
        finally:
            server.stop()
    return result | {
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    }


def _run(args: argparse.Namespace, folder: Path, server: Server) -> dict[str, Any]:
    routes = Routes()
    limits = Limits(per_minute=10**6, per_hour=10**7)
    fake = FakeGitHub(routes, limits=limits)  # type: ignore[arg-type]
    add_app_routes(routes)
    (folder / "repos").mkdir()
    scenario = Scenario(folder / "repos", fake)
    heads = push_heads(scenario, args.prs)
    args.rate, args.minutes = float(args.count), 1.0
    posts = plan(args, scenario, heads)
    key = app_key(folder)
    url = server.url()
    steps = {"receive": Step(), "handle": Step(), "publish": Step()}
    steps |= {f"handle {event}": Step() for event in COMMAND_EVENTS if args.comments}
    with serving(routes) as github:
        env = worker_env(github, fake, key, scenario.remote)
        credentials = read_credentials("4242", str(key), github.url)
        tokens = InstallationTokens(credentials)
        ctx = WorkerContext(url, tokens, env)
        for installation in range(100, 100 + args.installations):  # as a running worker has
            tokens.token(installation)
        with connect(url) as conn:
            for _, guid, event, payload in posts:
                body = json.dumps(payload).encode()
                signature = sign(SECRET, body)
                with measured(steps["receive"], server):
                    _receive(conn, guid, event, body, signature)
        try:
            _work(ctx, url, server, steps)
        finally:
            ctx.close()
    kinds = _mix(posts)
    if args.dump is not None:
        args.dump.mkdir(parents=True, exist_ok=True)
        for name, step in steps.items():
            step.profile.dump_stats(args.dump / f"{name}.pstats")
    return {
        "posted": len(posts),
        "mix": kinds,
        "cpu_ms_per_delivery_posted": {
            name: _ms(step, len(posts)) for name, step in steps.items() if step.runs
        }
        | {"total": _total(steps, len(posts))},
        "cpu_ms_per_job": {name: _ms(step, step.runs) for name, step in steps.items() if step.runs},
        "outcomes": {name: step.outcomes for name, step in steps.items() if step.outcomes},
        "phases_cpu_ms_per_job": {
            name: _phases(step, PHASES[name.split()[0]])
            for name, step in steps.items()
            if step.runs
        },
        "top_own_cpu_ms_per_job": {
            name: _top(step, args.top) for name, step in steps.items() if step.runs
        },
    }


def _receive(conn: Any, guid: str, event: str, body: bytes, signature: str) -> None:
    if not verify([SECRET], body, signature):
        raise AssertionError("the signature does not verify")
    store(conn, classify(guid, event, body))


def _work(ctx: WorkerContext, url: str, server: Server, steps: dict[str, Step]) -> None:
    """Run the queue's handle and publish jobs in its order until none is left (bounded)."""
    jobs: dict[str, Callable[[dict[str, Any]], str]] = {
        HANDLE: lambda a: handle_delivery(ctx, a["guid"]),
        PUBLISH: lambda a: str(publish_pr(ctx, a["repo"], a["pr"])),
    }
    with connect(url) as conn:
        for _ in range(100_000):
            row = conn.execute(
                "SELECT j.id, j.task_name, j.args, d.event FROM procrastinate_jobs j"
                " LEFT JOIN rubricate_deliveries d ON d.guid = j.args->>'guid'"
                " WHERE j.status = 'todo' AND j.task_name = ANY(%s)"
                " ORDER BY j.priority DESC, j.id LIMIT 1",
                ([HANDLE, PUBLISH],),
            ).fetchone()
            if row is None:
                return
            job_id, task, job_args, event = row
            # Jobs run back to back here, faster than an installation may write: each starts
            # with its installation's pace of writes cleared (its query still runs).
            conn.execute("UPDATE rubricate_budgets SET write_times = NULL")
            name = "publish" if task != HANDLE else f"handle {event}"
            step = steps.get(name, steps["handle" if task == HANDLE else "publish"])
            with measured(step, server):
                try:
                    outcome = jobs[task](job_args)
                except (RateLimited, RubricateError) as exc:
                    outcome = type(exc).__name__
            key = outcome if task == HANDLE else ("published" if outcome != "0" else "nothing")
            step.outcomes[key] = step.outcomes.get(key, 0) + 1
            conn.execute(
                "UPDATE procrastinate_jobs SET status = 'succeeded' WHERE id = %s", (job_id,)
            )


def _mix(posts: list[Any]) -> dict[str, int]:
    seen: set[str] = set()
    mix = {"repeats": 0, "ignorable_labeled": 0, "pr_opened": 0, "pr_synchronize": 0}
    for _, guid, event, payload in posts:
        if guid in seen:
            mix["repeats"] += 1
            continue
        seen.add(guid)
        if event in COMMAND_EVENTS:
            mix[event] = mix.get(event, 0) + 1
        elif payload["number"] >= IGNORABLE_FROM:
            mix["ignorable_labeled"] += 1
        else:
            mix[f"pr_{payload['action']}"] += 1
    return mix


def _ms(step: Step, per: int) -> dict[str, float]:
    parts = {
        "python": step.thread,
        "git": step.git,
        "postgresql": step.postgres,
        "fake_github": step.fake_github,
    }
    return {k: round(1000 * v / max(1, per), 2) for k, v in parts.items()} | {
        "all": round(1000 * sum(parts.values()) / max(1, per), 2)
    }


def _total(steps: dict[str, Step], per: int) -> float:
    total = sum(s.thread + s.git + s.postgres + s.fake_github for s in steps.values())
    return round(1000 * total / max(1, per), 2)


def _phases(step: Step, wanted: list[tuple[str, str]]) -> dict[str, float]:
    stats = pstats.Stats(step.profile).stats  # type: ignore[attr-defined]
    found: dict[str, float] = {}
    for label, where in wanted:
        suffix, name = where.split(":")
        cumulative = sum(
            value[3]
            for (path, _, function), value in stats.items()
            if function == name and path.endswith(suffix)
        )
        found[label] = round(1000 * cumulative / max(1, step.runs), 2)
    return found


def _top(step: Step, count: int) -> list[tuple[str, float]]:
    stats = pstats.Stats(step.profile).stats  # type: ignore[attr-defined]
    ranked = sorted(stats.items(), key=lambda item: item[1][2], reverse=True)[:count]
    return [
        (f"{Path(path).name}:{line}:{function}", round(1000 * value[2] / max(1, step.runs), 3))
        for (path, line, function), value in ranked
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=200, help="deliveries posted")
    add_mix_arguments(parser)
    parser.add_argument("--duplicates", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--dump", type=Path, help="write each step's profile here (pstats)")
    print(json.dumps(run(parser.parse_args()), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
