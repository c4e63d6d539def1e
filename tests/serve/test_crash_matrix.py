"""The crash matrix: a real `rubricate worker` process killed with SIGKILL at each step of a
delivery, then a fresh worker: no delivery lost, no ledger event twice, no second comment or
check run on the fake GitHub (served over HTTP), no status posted twice.

Each kill happens at a state observed from outside, never through a hook in the code: a request
held by the fake GitHub (the worker waits for its answer), or a row lock the test holds (the
worker waits on it inside its transaction, which PostgreSQL shows in `pg_stat_activity`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

from rubricate.ledger.pg_schema import connect
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

pytest.importorskip("procrastinate")
pytestmark = pytest.mark.slow
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


@pytest.fixture
def crash(tmp_path: Path, db_url: str, app_key: Path, openapi: Any) -> Iterator[Crash]:
    """A pushed PR branch, the fake GitHub over HTTP, and worker processes to start."""
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
        yield Crash(world, server, Workers(db_url, env, logs))
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
        left = wait_drained(crash.world.db_url)
    assert left == {"queued": 0, "jobs": 0, "unpublished": 0}, left
    assert failed_jobs(crash.world.db_url) == []
    check_once(crash)


def check_once(crash: Crash) -> None:
    """Every delivery handled, each event once, one sticky comment, one check run per head and
    content, one status per head and state."""
    world, fake = crash.world, crash.fake
    states = rows(world, "SELECT state, count(*) FROM rubricate_deliveries GROUP BY state")
    assert dict(states) == {"handled": 3}
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


def test_a_worker_process_runs_a_prs_life(crash: Crash) -> None:
    deliver_first(crash)
    deliver_rest(crash)
    drained(crash)


def test_a_worker_killed_right_after_fetching_its_job(crash: Crash) -> None:
    deliver_first(crash)
    killed_at(crash, crash.server.hold(r"POST /app/installations/\d+/access_tokens", before=True))
    assert rows(crash.world, "SELECT state FROM rubricate_deliveries") == [("queued",)]
    sql = "SELECT status::text FROM procrastinate_jobs WHERE task_name = 'rubricate.handle'"
    assert rows(crash.world, sql) == [("doing",)]
    deliver_rest(crash)
    drained(crash)


def waiting_on_lock(db_url: str, query: str, timeout: float = 60.0) -> None:
    """Wait until a backend runs `query…` and waits for a lock."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with connect(db_url) as conn:
            found = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                " AND query LIKE %s",
                (query + "%",),
            ).fetchone()
        if found and found[0]:
            return
        time.sleep(0.05)
    raise AssertionError(f"nothing waited on a lock in {query!r}")


def test_a_worker_killed_after_its_ledger_insert_before_its_commit(crash: Crash) -> None:
    deliver_first(crash)
    with psycopg.connect(crash.world.db_url) as blocker:  # a transaction holds the row
        blocker.execute("SELECT 1 FROM rubricate_deliveries WHERE guid = 'life-1' FOR UPDATE")
        worker = crash.workers.start()
        try:
            waiting_on_lock(crash.world.db_url, "UPDATE rubricate_deliveries")
        finally:
            kill(worker)
        blocker.rollback()
    assert event_ids(crash.world) == []  # inserted, never committed
    deliver_rest(crash)
    drained(crash)


def test_a_worker_killed_after_its_commit_before_its_job_is_done(crash: Crash) -> None:
    deliver_first(crash)
    held = crash.server.hold(r"POST /app/installations/\d+/access_tokens", before=True)
    worker = crash.workers.start()
    try:
        held.wait()
        with psycopg.connect(crash.world.db_url) as blocker:  # the job's row, taken by now
            blocker.execute(
                "SELECT 1 FROM procrastinate_jobs WHERE task_name = 'rubricate.handle' FOR UPDATE"
            )
            held.release()
            waiting_on_lock(crash.world.db_url, "SELECT procrastinate_finish_job")
            kill(worker)
            blocker.rollback()
    finally:
        kill(worker)
    assert rows(crash.world, "SELECT state FROM rubricate_deliveries") == [("handled",)]
    deliver_rest(crash)
    drained(crash)


WRITES = {
    "sticky comment": ("first", r"POST /repos/octo/widgets/issues/7/comments"),
    "check run": ("first", r"POST /repos/octo/widgets/check-runs"),
    "status": ("first", r"POST /repos/octo/widgets/statuses/[0-9a-f]+"),
    "sticky edit": ("rest", r"PATCH /repos/octo/widgets/issues/comments/\d+"),
    "reaction": ("rest", r"POST /repos/octo/widgets/issues/comments/\d+/reactions"),
    "second check run": ("rest", r"POST /repos/octo/widgets/check-runs"),
}


@pytest.mark.parametrize("write", list(WRITES))
def test_a_publish_killed_after_a_github_write(crash: Crash, write: str) -> None:
    phase, key = WRITES[write]
    deliver_first(crash)
    if phase == "rest":
        with crash.workers.running():
            assert not any(wait_drained(crash.world.db_url).values())
        deliver_rest(crash)
    killed_at(crash, crash.server.hold(key))
    if phase == "first":
        deliver_rest(crash)
    drained(crash)
