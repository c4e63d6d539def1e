"""One PR's life for crash tests: the fake GitHub over HTTP, worker processes, and the checks
that a crash left nothing lost and nothing twice."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.action.contract import validate_calls
from tests.action.fake_github import FakeGitHub
from tests.action.scenario import PR, REPORT_V1, REPORT_V2, TEST_FILE, WRITER, Scenario
from tests.serve.conftest import WorkerSetup
from tests.serve.github_http import GitHubServer, Hold, Routes, serving
from tests.serve.processes import (
    Workers,
    add_app_routes,
    failed_jobs,
    kill,
    wait_drained,
    worker_env,
)
from tests.serve.world import comment_delivery, event_ids, pr_delivery, rows

LIFE_EVENTS = ["first_submission", "review_scored", "first_submission", "review_scored"]
"""What the PR's life records when nothing is killed."""
SCORE = "/score spec=4 comp=4 qual=3 ver=3 format=2 -- looks right"


@dataclass
class Crash:
    """One crash test's world: the scenario, the fake GitHub's server, the workers."""

    world: WorkerSetup
    server: GitHubServer
    workers: Workers

    @property
    def fake(self) -> FakeGitHub:
        return self.world.scenario.fake


@contextmanager
def crash_world(
    tmp_path: Path, db_url: str, app_key: Path, openapi: Any, stalled_after: float = 3.0
) -> Iterator[Crash]:
    """A pushed PR branch, the fake GitHub over HTTP, and worker processes to start (with
    `--stalled-after`); every exchange is checked against GitHub's description afterwards."""
    routes = Routes()
    fake = FakeGitHub(routes)  # type: ignore[arg-type]
    add_app_routes(routes)
    (tmp_path / "repos").mkdir()
    scenario = Scenario(tmp_path / "repos", fake)
    scenario.push({"out/report.json": REPORT_V1, "tests/test_report.py": TEST_FILE}, "Add")
    with serving(routes) as server:
        env = worker_env(server, fake, app_key, scenario.remote)
        logs = tmp_path / "logs"
        logs.mkdir()
        world = WorkerSetup(scenario, None, db_url)  # type: ignore[arg-type]
        yield Crash(world, server, Workers(db_url, env, logs, stalled_after))
    if openapi is not None:
        validate_calls(openapi, routes.calls)


def deliver_first(crash: Crash) -> None:
    """The PR opened."""
    pr_delivery(crash.world, "life-1")


def deliver_rest(crash: Crash) -> None:
    """A maintainer's score, then a new push."""
    world = crash.world
    comment_delivery(world, "life-2", WRITER, SCORE)
    world.scenario.push({"out/report.json": REPORT_V2}, "Fix the total")
    pr_delivery(world, "life-3", "synchronize")


def killed_at(crash: Crash, held: Hold) -> None:
    """Start a worker, wait for the held request, kill the worker, then let the answer go."""
    worker = crash.workers.start()
    try:
        held.wait()
    finally:
        kill(worker)
        held.release()


def drained(crash: Crash) -> None:
    """Run a fresh worker until nothing is left, then check the outcome."""
    with crash.workers.running():
        settled(crash)
    check_once(crash)


def settled(crash: Crash) -> None:
    """Wait until nothing is left to do; no job may have been given up."""
    left = wait_drained(crash.world.db_url)
    assert left == {"queued": 0, "jobs": 0, "unpublished": 0}, left
    failed = failed_jobs(crash.world.db_url)
    assert failed == [], failed


def put_back_as_gone(crash: Crash) -> list[str]:
    """The workers' log lines saying a job was put back because its worker's liveness lock was
    free (`rubricate.serve.liveness`)."""
    logs = sorted(crash.workers.log_dir.glob("*.log"))
    lines = [line for log in logs for line in log.read_text(errors="replace").splitlines()]
    return [line for line in lines if "put back: its worker is gone" in line]


def check_once(crash: Crash, skipped: int = 0) -> None:
    """Every delivery handled (`skipped` more stored as skipped), each event once, one sticky
    comment, one check run per head and content, one status per head and state."""
    world, fake = crash.world, crash.fake
    states = rows(world, "SELECT state, count(*) FROM rubricate_deliveries GROUP BY state")
    assert dict(states) == {"handled": 3, **({"skipped": skipped} if skipped else {})}
    ids = event_ids(world)
    assert len(ids) == len(set(ids))
    kinds = [k for (k,) in rows(world, "SELECT line::jsonb->>'kind' FROM rubricate_events")]
    assert sorted(kinds) == sorted(LIFE_EVENTS)
    bot = [c for c in fake.comments_on(PR) if c["user"]["login"] == fake.bot_login]
    assert len(bot) == 1, [c["body"][:60] for c in bot]
    runs = [(r["head_sha"], r["name"], r.get("external_id")) for r in fake.check_runs.values()]
    assert len(runs) == len(set(runs)), runs
    posted = [(s["sha"], s["context"], s["state"], s["description"]) for s in fake.statuses]
    assert len(posted) == len(set(posted)), posted
    assert {content for _, content in fake.reactions} == {"+1"}  # a repeat adds none on GitHub
