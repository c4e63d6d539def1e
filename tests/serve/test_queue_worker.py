"""A real procrastinate worker over the receiver's queue: every job of a PR runs in order under
its lock, the publish job follows, and a second run finds nothing to do."""

from __future__ import annotations

import re

import pytest

from rubricate.ledger.pg_schema import connect
from rubricate.serve.queue import QUEUE, SWEEP, defer, hold
from tests.action.payloads import REPO
from tests.action.scenario import PR, REPORT_V1, REPORT_V2, TEST_FILE, WRITER
from tests.serve.conftest import WorkerSetup
from tests.serve.world import comment_delivery, event_ids, pr_delivery, rows

procrastinate = pytest.importorskip("procrastinate")


def run_worker(world: WorkerSetup) -> None:
    """Run the queued jobs until none is left (bounded by the queue itself)."""
    from rubricate.serve.liveness import LivenessLocks
    from rubricate.serve.tasks import queue_app

    app = queue_app(world.ctx, LivenessLocks(world.db_url))
    app.run_worker(
        queues=[QUEUE],
        wait=False,
        concurrency=1,  # a second slot would find the PR locked and, not waiting, stop
        install_signal_handlers=False,
        listen_notify=False,
    )


def test_a_worker_runs_every_delivery_then_publishes_once(worker_env: WorkerSetup) -> None:
    world = worker_env
    scenario = world.scenario
    scenario.fake.rsps.add(  # the sweeper runs at the worker's start: nothing failed
        "GET", re.compile(r"https://api\.github\.com(?::443)?/app/hook/deliveries\?.*$"), json=[]
    )
    scenario.push({"out/report.json": REPORT_V1, "tests/test_report.py": TEST_FILE}, "Add")
    pr_delivery(world, "q-1")
    comment_delivery(world, "q-2", WRITER, "/score spec=4 comp=4 qual=3 ver=3 format=2 -- ok")
    scenario.push({"out/report.json": REPORT_V2}, "Fix the total")
    pr_delivery(world, "q-3", "synchronize")
    run_worker(world)
    states = rows(world, "SELECT guid, state FROM rubricate_deliveries ORDER BY guid")
    assert states == [("q-1", "handled"), ("q-2", "handled"), ("q-3", "handled")]
    statuses = rows(world, "SELECT task_name, status::text FROM procrastinate_jobs ORDER BY id")
    assert {status for _, status in statuses} == {"succeeded"}
    assert [t for t, _ in statuses].count("rubricate.handle") == 3
    fake = scenario.fake
    stickies = [c for c in fake.comments_on(PR) if c["user"]["login"] == fake.bot_login]
    assert len(stickies) == 1
    assert {s["sha"] for s in fake.statuses} <= set(scenario.heads)
    assert rows(world, "SELECT count(*) FROM rubricate_outbox WHERE published_at IS NULL") == [(0,)]
    ids, calls = event_ids(world), len(fake.calls)
    run_worker(world)
    assert event_ids(world) == ids
    assert len(fake.calls) == calls
    assert rows(world, f"SELECT count(*) FROM rubricate_jobs WHERE repo = '{REPO}'") == [(1,)]


def test_a_sweep_another_run_holds_ends_at_once(worker_env: WorkerSetup) -> None:
    """A sweep put back as stalled while the run it replaced still goes (its worker missed a
    heartbeat) finds the sweep's lock held: it ends, asking GitHub nothing, counting nothing."""
    world = worker_env
    with connect(world.db_url) as conn:  # queued before the worker starts, so it runs first
        assert defer(conn, SWEEP, {"timestamp": 1_700_000_000}, queueing_lock=SWEEP)
        row = conn.execute("SELECT max(id) FROM procrastinate_jobs").fetchone()
    assert row is not None
    with connect(world.db_url) as other:
        hold(other, SWEEP)
        run_worker(world)
        other.execute("SELECT pg_advisory_unlock_all()")
    sweep = rows(world, f"SELECT status::text FROM procrastinate_jobs WHERE id = {row[0]}")
    assert sweep == [("succeeded",)]
    assert not [c for c in world.scenario.fake.calls if "/hook/deliveries" in str(c)]
    assert rows(world, "SELECT count(*) FROM rubricate_job_failures") == [(0,)]
