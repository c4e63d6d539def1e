"""Real `rubricate worker` processes against a database and the fake GitHub over HTTP: started,
killed with SIGKILL, and waited on until the queue is drained (bounded)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

from rubricate.ledger.pg_schema import connect
from rubricate.serve.signature import sign
from tests.action.fake_github import FakeGitHub, _json
from tests.serve.conftest import TOKEN_BODY
from tests.serve.github_http import GitHubServer, Routes

TOKEN_ROUTE = re.compile(r"https://api\.github\.com/app/installations/(\d+)/access_tokens$")


def add_app_routes(routes: Routes) -> None:
    """The App's own endpoints: `POST /app/installations/{id}/access_tokens` (a token naming
    its installation) and `GET /app/hook/deliveries` (no failed delivery)."""

    def grant(request: Any) -> tuple[int, dict[str, str], str]:
        match = TOKEN_ROUTE.match(str(request.url))
        assert match is not None
        return _json(201, {**TOKEN_BODY, "token": f"ghs_installation{match.group(1)}Token0123"})

    routes.add_callback("POST", TOKEN_ROUTE, grant)
    routes.add("GET", re.compile(r"https://api\.github\.com/app/hook/deliveries(\?.*)?$"), [])


@dataclass
class Workers:
    """How to start worker processes for one database, App and fake GitHub."""

    db_url: str
    env: dict[str, str]
    log_dir: Path
    stalled_after: float = 3.0
    nice: int = 0
    """`--nice`: how much lower in CPU priority the workers run."""

    def start(self, concurrency: int = 1, name: str = "worker") -> subprocess.Popen[bytes]:
        """A `rubricate worker` process (its output in the log folder)."""
        log = (self.log_dir / f"{name}-{time.monotonic_ns()}.log").open("wb")
        args = ["--database-url", self.db_url, "--concurrency", str(concurrency)]
        args += ["--stalled-after", str(self.stalled_after)]
        if self.nice:
            args += ["--nice", str(self.nice)]
        return subprocess.Popen(
            [sys.executable, "-m", "rubricate", "worker", *args],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=self.env,
        )

    @contextmanager
    def running(self, concurrency: int = 1) -> Iterator[subprocess.Popen[bytes]]:
        """A worker process, stopped with SIGTERM afterwards (SIGKILL when it will not stop)."""
        process = self.start(concurrency)
        try:
            yield process
        finally:
            stop(process)


def worker_env(
    server: GitHubServer, fake: FakeGitHub, app_key: Path, remote: Path
) -> dict[str, str]:
    """The environment of a worker process talking to `server` as App 4242."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUBRICATE_"))}
    env.update(
        PYTHONUNBUFFERED="1",
        RUBRICATE_APP_ID="4242",
        RUBRICATE_APP_PRIVATE_KEY_FILE=str(app_key),
        GITHUB_API_URL=server.url,
        RUBRICATE_REPO_REMOTE=str(remote),
        RUBRICATE_BOT_LOGIN=fake.bot_login,
    )
    return env


def kill(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL, and reap it."""
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM (a graceful stop), SIGKILL after 30 s."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        kill(process)


def unfinished(db_url: str) -> dict[str, int]:
    """What is left to do: deliveries queued, jobs todo or doing, outbox rows unpublished."""
    with connect(db_url) as conn:
        queued = conn.execute(
            "SELECT count(*) FROM rubricate_deliveries WHERE state = 'queued'"
        ).fetchone()
        jobs = conn.execute(
            "SELECT count(*) FROM procrastinate_jobs WHERE status IN ('todo', 'doing')"
            " AND task_name IN ('rubricate.handle', 'rubricate.publish')"
        ).fetchone()
        outbox = conn.execute(
            "SELECT count(*) FROM rubricate_outbox WHERE published_at IS NULL"
        ).fetchone()
    return {
        "queued": queued[0] if queued else 0,
        "jobs": jobs[0] if jobs else 0,
        "unpublished": outbox[0] if outbox else 0,
    }


def wait_drained(db_url: str, timeout: float = 120.0) -> dict[str, int]:
    """Wait until nothing is left to do; what is left when the time is up."""
    deadline = time.monotonic() + timeout
    left = unfinished(db_url)
    while any(left.values()) and time.monotonic() < deadline:
        time.sleep(0.2)
        left = unfinished(db_url)
    return left


def failed_jobs(db_url: str) -> list[tuple[str, str]]:
    """Jobs procrastinate gave up on (task, args)."""
    with connect(db_url) as conn:
        rows = conn.execute(
            "SELECT task_name, args FROM procrastinate_jobs WHERE status = 'failed'"
        ).fetchall()
    return [(task, json.dumps(args)) for task, args in rows]


def start_receiver(args: list[str], port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """A `rubricate serve` process, once its `/healthz` answers (at most 60 s)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "rubricate", "serve", *args, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    for _ in range(600):  # bounded: 60 s at most
        try:
            if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=5).ok:
                return process
        except requests.RequestException:
            pass
        time.sleep(0.1)
    kill(process)
    raise AssertionError("rubricate serve did not start")


def post_until_acknowledged(
    url: str, secret: bytes, guid: str, event: str, payload: dict[str, Any], timeout: float = 90.0
) -> tuple[int, float]:
    """Post a signed delivery again and again (as GitHub's redelivery would) until it is
    answered 200 or 202; the number of posts and the milliseconds the last one took."""
    body = json.dumps(payload).encode()
    headers = {
        "Content-Type": "application/json",
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": guid,
        "X-Hub-Signature-256": sign(secret, body),
    }
    deadline = time.monotonic() + timeout
    posts = 0
    while time.monotonic() < deadline:
        posts += 1
        began = time.perf_counter()
        try:
            answer = requests.post(f"{url}/webhook", data=body, headers=headers, timeout=30)
            if answer.status_code in (200, 202):
                return posts, (time.perf_counter() - began) * 1000
        except requests.RequestException:
            pass
        time.sleep(0.2)
    raise AssertionError(f"delivery {guid} was never acknowledged")
