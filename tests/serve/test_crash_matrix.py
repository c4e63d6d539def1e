"""The crash matrix: a real `rubricate worker` process killed with SIGKILL at each step of a
delivery, then a fresh worker: no delivery lost, no ledger event twice, no second comment or
check run on the fake GitHub (served over HTTP), no status posted twice. The workers' heartbeat
timeout is an hour: the killed worker's job is put back because its liveness lock went with it.

Each kill happens at a state observed from outside, never through a hook in the code: a request
held by the fake GitHub (the worker waits for its answer), or a row lock the test holds (the
worker waits on it inside its transaction, which PostgreSQL shows in `pg_stat_activity`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from rubricate.ledger.pg_schema import connect
from tests.serve.crash import (
    Crash,
    crash_world,
    deliver_first,
    deliver_rest,
    drained,
    killed_at,
    put_back_as_gone,
)
from tests.serve.processes import kill, wait_drained
from tests.serve.world import event_ids, rows

pytest.importorskip("procrastinate")
pytestmark = pytest.mark.slow


@pytest.fixture
def crash(tmp_path: Path, db_url: str, app_key: Path, openapi: Any) -> Iterator[Crash]:
    """A pushed PR branch, the fake GitHub over HTTP, and worker processes to start."""
    with crash_world(tmp_path, db_url, app_key, openapi, stalled_after=HOUR) as world:
        yield world


HOUR = 3600.0
"""`--stalled-after`: no job here waits for a heartbeat to age."""


def drained_after_kill(crash: Crash) -> None:
    """Drained, the killed worker's job put back by the liveness rule."""
    drained(crash)
    assert len(put_back_as_gone(crash)) == 1


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
    drained_after_kill(crash)


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
    drained_after_kill(crash)


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
    drained_after_kill(crash)


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
    drained_after_kill(crash)
