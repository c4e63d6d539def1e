"""An installation's writes are paced across workers through PostgreSQL: within GitHub's
content-creation limits in any window, a write too early puts its job back (never a sleep), and
the installation's reads stay free."""

from __future__ import annotations

import inspect
import threading
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from rubricate.errors import RateLimited, WritesPaced
from rubricate.github.adapter import WRITES, GitHubAdapter
from rubricate.ledger.pg_schema import connect
from rubricate.serve.budget import Budgeted, stopped
from rubricate.serve.handle import handle_delivery
from rubricate.serve.publish import publish_pr
from rubricate.serve.tasks import Retry
from rubricate.serve.write_pace import ROOM, WINDOWS, admit, take
from tests.action.payloads import REPO
from tests.action.scenario import PR, REPORT_V2
from tests.serve.conftest import INSTALLATION, WorkerSetup
from tests.serve.world import pr_delivery, rows

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
GITHUB_PER_MINUTE, GITHUB_PER_HOUR = 80, 500
"""GitHub's documented content-creation limits of an installation."""
READS = {
    "artifact_zip",
    "closed_pulls",
    "collaborator_role",
    "comment",
    "commit_verification",
    "find_check_run",
    "find_sticky",
    "issue",
    "latest_status",
    "open_pulls",
    "pull",
    "pull_or_none",
    "pull_summary",
    "run_artifact",
}


def greedy(seconds: float, step: float) -> list[datetime]:
    """The times a writer trying every `step` seconds is admitted, over `seconds`."""
    times: list[datetime] = []
    admitted = []
    for tick in range(int(seconds / step)):
        now = NOW + timedelta(seconds=tick * step)
        kept, _ = admit(times, now)
        if kept is not None:
            times = kept
            admitted.append(now)
    return admitted


def most_in_any(window: timedelta, times: list[datetime]) -> int:
    most, first = 0, 0
    for last, at in enumerate(times):
        while at - times[first] >= window:
            first += 1
        most = max(most, last - first + 1)
    return most


def test_a_greedy_writer_stays_under_githubs_limits_in_every_window() -> None:
    times = greedy(2.5 * 3600, 0.25)
    assert most_in_any(timedelta(minutes=1), times) == GITHUB_PER_MINUTE - 5  # a margin
    assert most_in_any(timedelta(hours=1), times) == GITHUB_PER_HOUR - 10
    assert len(times) >= 2 * (GITHUB_PER_HOUR - 10)  # the writer is paced, not stopped


def test_a_burst_within_the_limits_is_admitted_at_once_then_as_writes_leave() -> None:
    times: list[datetime] = []
    minute, most = WINDOWS[0]
    for n in range(most):
        kept, _ = admit(times, NOW + timedelta(seconds=n / 10))
        assert kept is not None
        times = kept
    later = NOW + timedelta(seconds=30)
    kept, earliest = admit(times, later)
    assert kept is None
    assert earliest == times[ROOM - 1] + minute  # when the minute has room for one effect
    assert admit(times, times[0] + minute)[0] is not None  # a write may go before that
    assert admit(list(reversed(times)), later)[1] == earliest  # in any order


def test_each_adapter_method_is_a_read_or_a_write() -> None:
    methods = {
        name
        for name, _ in inspect.getmembers(GitHubAdapter, inspect.isfunction)
        if not name.startswith("_")
    }
    assert methods == READS | WRITES, "say whether a new adapter method writes (WRITES)"
    assert not READS & WRITES


def test_only_writes_take_a_slot_and_a_refusal_stops_every_later_call() -> None:
    taken: list[str] = []
    sent: list[str] = []

    class Api:
        def pull(self, number: int) -> int:
            sent.append("pull")
            return number

        def create_comment(self, pr: int, body: str) -> int:
            sent.append("create_comment")
            return 1

    def pace() -> None:
        taken.append("slot")
        if len(taken) > 1:
            raise WritesPaced(NOW)

    api = Budgeted(Api(), pace)
    assert api.pull(3) == 3
    assert api.create_comment(3, "x") == 1
    assert taken == ["slot"]
    with pytest.raises(WritesPaced):
        api.create_comment(3, "y")
    with pytest.raises(WritesPaced):
        api.pull(3)  # the job stops here: it is retried at its slot
    assert sent == ["pull", "create_comment"]


def test_a_paced_job_is_retried_at_its_slot() -> None:
    job: Any = type("Job", (), {"attempts": 0})()
    decision = Retry().get_retry_decision(exception=WritesPaced(NOW), job=job)
    assert decision is not None
    assert decision.retry_at == NOW


def test_workers_racing_for_one_installation_share_its_slots(db_url: str) -> None:
    admitted: list[bool] = []
    untils: set[datetime] = set()
    lock = threading.Lock()
    start = threading.Barrier(4)

    def writer() -> None:
        with connect(db_url) as conn:
            start.wait()
            for _ in range(25):
                try:
                    take(conn, INSTALLATION, clock=lambda: NOW)
                    ok = True
                except WritesPaced as exc:
                    ok = False
                    with lock:
                        untils.add(exc.until)
                with lock:
                    admitted.append(ok)

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(admitted) == 100
    assert admitted.count(True) == WINDOWS[0][1]
    assert untils == {NOW + WINDOWS[0][0]}
    with connect(db_url) as conn:
        take(conn, INSTALLATION + 1, clock=lambda: NOW)  # another installation has its own
        take(conn, INSTALLATION, clock=lambda: NOW + WINDOWS[0][0])


def test_a_slot_is_never_taken_inside_an_open_transaction(db_url: str) -> None:
    with connect(db_url) as conn:
        with conn.transaction(), pytest.raises(RuntimeError, match="outside any open"):
            take(conn, INSTALLATION, clock=lambda: NOW)
        assert conn.execute("SELECT count(*) FROM rubricate_budgets").fetchone() == (0,)
        take(conn, INSTALLATION, clock=lambda: NOW)
        assert conn.execute("SELECT count(*) FROM rubricate_budgets").fetchone() == (1,)


def test_a_paced_write_blocks_nothing_but_its_job(db_url: str) -> None:
    with connect(db_url) as conn:
        stopped(conn, INSTALLATION, NOW, WritesPaced(NOW + timedelta(seconds=1)))
        assert conn.execute("SELECT count(*) FROM rubricate_budgets").fetchone() == (0,)
        stopped(conn, INSTALLATION, NOW, RateLimited(NOW + timedelta(minutes=1)))
        blocked = conn.execute("SELECT blocked_until FROM rubricate_budgets").fetchone()
    assert blocked == (NOW + timedelta(minutes=1),)


def test_a_publish_refused_a_slot_lands_once_when_retried(world: WorkerSetup) -> None:
    handle_delivery(world.ctx, pr_delivery(world, "g-paced"), now=world.scenario.clock)
    minute, most = WINDOWS[0]
    full = [datetime.now(timezone.utc) + timedelta(hours=1)] * most
    with connect(world.db_url) as conn:  # the minute's writes are all taken
        conn.execute(
            "INSERT INTO rubricate_budgets (installation, updated_at, write_times)"
            " VALUES (%s, now(), %s) ON CONFLICT (installation)"
            " DO UPDATE SET write_times = excluded.write_times",
            (INSTALLATION, full),
        )
    future = full[0] + minute
    fake = world.scenario.fake
    with pytest.raises(WritesPaced) as refused:
        publish_pr(world.ctx, REPO, PR)
    assert refused.value.until >= future
    assert str(refused.value).startswith("the installation's pace of writes: no write before")
    assert fake.comments_on(PR) == []
    assert fake.statuses == []
    assert fake.check_runs == {}
    assert rows(world, "SELECT blocked_until FROM rubricate_budgets") == [(None,)]
    with connect(world.db_url) as conn:
        conn.execute("UPDATE rubricate_budgets SET write_times = NULL")
    assert publish_pr(world.ctx, REPO, PR, again=True) > 0
    assert len(fake.comments_on(PR)) == 1
    assert len(fake.statuses) == 1
    assert len(fake.check_runs) == 1


def test_a_publish_stopped_after_its_first_write_keeps_it_and_does_not_write_it_again(
    world: WorkerSetup, monkeypatch: pytest.MonkeyPatch
) -> None:
    scenario, fake = world.scenario, world.scenario.fake
    handle_delivery(world.ctx, pr_delivery(world, "g-first"), now=scenario.clock)
    publish_pr(world.ctx, REPO, PR)
    scenario.push({"out/report.json": REPORT_V2}, "Fix the total")
    handle_delivery(world.ctx, pr_delivery(world, "g-next", "synchronize"), now=scenario.clock)
    slots = iter([True])

    def one_slot(conn: Any, installation: int) -> Any:
        def pace() -> None:
            if not next(slots, False):
                raise WritesPaced(datetime.now(timezone.utc))

        return pace

    monkeypatch.setattr("rubricate.serve.write_pace.pacer", one_slot)
    before = len(fake.calls)
    with pytest.raises(WritesPaced):
        publish_pr(world.ctx, REPO, PR)
    [first] = [c for c in fake.call_lines(before) if not c.startswith("GET")]
    assert rows(world, "SELECT count(*) FROM rubricate_outbox WHERE published_at IS NULL") == [(1,)]
    monkeypatch.undo()
    before = len(fake.calls)
    assert publish_pr(world.ctx, REPO, PR, again=True) > 0
    again = [c for c in fake.call_lines(before) if not c.startswith("GET")]
    assert again  # the rest was written
    assert first not in again  # its view was kept: not written a second time
    assert rows(world, "SELECT count(*) FROM rubricate_outbox WHERE published_at IS NULL") == [(0,)]
