"""PostgreSQL crashed and restarted (`pg_ctl stop -m immediate`, then start) and the receiver
killed with SIGKILL, while signed deliveries arrive and two worker processes run: every
acknowledged delivery is stored and handled once, the workers recover on their own, and GitHub
sees one sticky comment and no check run twice."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rubricate.ledger.pg_schema import connect
from tests.action.scenario import REPORT_V2, WRITER
from tests.ledger.pg_server import Server, free_port
from tests.serve.conftest import INSTALLATION, SECRET
from tests.serve.crash import SCORE, Crash, check_once, crash_world, settled
from tests.serve.processes import kill, post_until_acknowledged, start_receiver, stop

pytest.importorskip("procrastinate")
pytestmark = pytest.mark.slow


@pytest.fixture
def crash(tmp_path: Path, own_server: Server, app_key: Path, openapi: Any) -> Iterator[Crash]:
    with crash_world(tmp_path, own_server.url(), app_key, openapi) as world:
        yield world


def handle_running(db_url: str, timeout: float = 60.0) -> None:
    """Wait until a worker runs a delivery's job."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with connect(db_url) as conn:
            row = conn.execute(
                "SELECT count(*) FROM procrastinate_jobs"
                " WHERE task_name = 'rubricate.handle' AND status = 'doing'"
            ).fetchone()
        if row and row[0]:
            return
        time.sleep(0.02)
    raise AssertionError("no worker took the delivery's job")


def test_a_database_crash_and_a_receiver_kill_lose_nothing(
    crash: Crash, own_server: Server, app_key: Path, tmp_path: Path
) -> None:
    scenario = crash.world.scenario
    secret = tmp_path / "secret"
    secret.write_bytes(SECRET + b"\n")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    args = ["--database-url", own_server.url(), "--app-id", "4242"]
    args += ["--private-key-file", str(app_key), "--webhook-secret-file", str(secret)]
    env = crash.workers.env

    def send(guid: str, event: str, payload: dict[str, Any]) -> None:
        payload["installation"] = {"id": INSTALLATION}
        post_until_acknowledged(url, SECRET, guid, event, payload)

    def ignorable(tag: str) -> None:
        for n in range(10):
            send(f"{tag}-{n}", "pull_request", scenario.pr_payload("labeled"))

    receiver = start_receiver(args, port, env)
    workers = [crash.workers.start(concurrency=2, name=f"w{n}") for n in range(2)]
    try:
        send("life-1", "pull_request", scenario.pr_payload("opened"))
        handle_running(own_server.url())
        own_server.crash_restart()  # in the middle of the delivery's job
        ignorable("a")
        send("life-2", "issue_comment", scenario.comment_payload(WRITER, SCORE))
        ignorable("b")
        kill(receiver)
        receiver = start_receiver(args, port, env)
        scenario.push({"out/report.json": REPORT_V2}, "Fix the total")
        send("life-3", "pull_request", scenario.pr_payload("synchronize"))
        ignorable("c")
        settled(crash)
        assert [w.poll() for w in workers] == [None, None]  # recovered, still running
    finally:
        for process in [receiver, *workers]:
            stop(process)
    check_once(crash, skipped=30)
    assert [w.returncode for w in workers] == [0, 0]
