"""Fixtures for serve and worker: a migrated database with the job queue, the receiver on a
loopback port, and an App private key."""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.action.fake_github import FakeGitHub
from tests.action.scenario import REPORT_V1, TEST_FILE, Scenario
from tests.ledger.conftest import TEMPLATE, pg_server
from tests.ledger.pg_server import Server, bin_dir, free_port, start

if TYPE_CHECKING:
    from rubricate.serve.context import WorkerContext

__all__ = ["pg_server"]
SECRET = b"It's a Secret to Everybody"
INSTALLATION = 77
TOKEN_BODY = {
    "token": "ghs_installationToken0123456789abcdefgh",
    "expires_at": "2099-01-01T00:00:00Z",
    "permissions": {"pull_requests": "write", "checks": "write", "statuses": "write"},
    "repository_selection": "all",
}
_numbers = itertools.count(1)


def fresh_database(server: Server) -> str:
    """A new database copied from the migrated template, with the job queue's tables."""
    pytest.importorskip("procrastinate")
    from rubricate.ledger.pg_schema import connect
    from rubricate.serve.queue import migrate_queue

    name = f"rubricate_serve_{next(_numbers)}"
    with connect(server.url()) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
    with connect(server.url(name)) as conn:
        migrate_queue(conn)
    return server.url(name)


@pytest.fixture
def db_url(pg_server: Server) -> str:
    """A fresh database for one test."""
    return fresh_database(pg_server)


@pytest.fixture
def own_server() -> Iterator[Server]:
    """A PostgreSQL server of the test's own (it is crashed), with a migrated database."""
    binaries = bin_dir()
    if binaries is None:
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
    pytest.importorskip("procrastinate")
    from rubricate.ledger.pg_schema import connect, migrate
    from rubricate.serve.queue import migrate_queue

    server = start(binaries)
    try:
        with connect(server.url()) as conn:
            migrate(conn)
            migrate_queue(conn)
        yield server
    finally:
        server.stop()


@dataclass
class Receiver:
    """The receiver running on a loopback port."""

    url: str
    db_url: str
    pool: Any = None
    """Its connection pool."""


@pytest.fixture
def receiver(db_url: str) -> Iterator[Receiver]:
    """`POST /webhook` and friends on 127.0.0.1, with a 64 KiB body limit."""
    with running_receiver(db_url) as running:
        yield running


@contextlib.contextmanager
def running_receiver(
    db_url: str, *, pool_timeout: float = 30.0, min_size: int = 1
) -> Iterator[Receiver]:
    """The receiver on a free loopback port, its pool on `db_url` (opened without waiting)."""
    uvicorn = pytest.importorskip("uvicorn")
    from psycopg_pool import ConnectionPool

    from rubricate.serve.receiver import create_app

    pool: ConnectionPool[Any] = ConnectionPool(
        db_url,
        min_size=min_size,
        max_size=4,
        kwargs={"autocommit": True},
        timeout=pool_timeout,
        open=False,
    )
    pool.open(wait=False)
    port = free_port()
    config = uvicorn.Config(
        create_app(pool, [b"an older secret", SECRET], max_body=64 * 1024),
        host="127.0.0.1",
        port=port,
        log_level="warning",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(500):  # bounded: 10 s at most
        if server.started:
            break
        time.sleep(0.02)
    assert server.started, "the receiver did not start"
    try:
        yield Receiver(f"http://127.0.0.1:{port}", db_url, pool)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        pool.close()


@pytest.fixture(scope="session")
def app_key(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh RSA private key in PEM, as GitHub hands an App."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    )
    path = tmp_path_factory.mktemp("app") / "app.pem"
    path.write_bytes(pem)
    return path


@pytest.fixture
def worker_env(
    tmp_path: Path, fake_github: FakeGitHub, db_url: str, app_key: Path
) -> Iterator[WorkerSetup]:
    """Real repositories, the fake GitHub (with the App's token endpoint) and a worker context
    on a fresh database."""
    from rubricate.serve.app_auth import InstallationTokens, read_credentials
    from rubricate.serve.context import WorkerContext

    scenario = Scenario(tmp_path, fake_github)
    fake_github.rsps.add_callback(
        "POST",
        re.compile(
            rf"https://api\.github\.com(?::443)?/app/installations/{INSTALLATION}/access_tokens$"
        ),
        callback=lambda _request: (201, {}, json.dumps(TOKEN_BODY)),
    )
    credentials = read_credentials("4242", str(app_key), "https://api.github.com")
    tokens = InstallationTokens(credentials)
    env = {
        "RUBRICATE_REPO_REMOTE": str(scenario.remote),
        "RUBRICATE_BOT_LOGIN": fake_github.bot_login,
    }
    ctx = WorkerContext(db_url, tokens, env)
    try:
        yield WorkerSetup(scenario, ctx, db_url)
    finally:
        ctx.close()


@pytest.fixture
def world(worker_env: WorkerSetup) -> WorkerSetup:
    """The PR's branch pushed, nothing delivered yet."""
    worker_env.scenario.push(
        {"out/report.json": REPORT_V1, "tests/test_report.py": TEST_FILE}, "Add the report"
    )
    return worker_env


@dataclass
class WorkerSetup:
    """One worker test's world."""

    scenario: Scenario
    ctx: WorkerContext
    db_url: str
