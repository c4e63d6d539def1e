"""Fixtures for the PostgreSQL ledger: one server per session, one database per test module."""

from __future__ import annotations

import itertools
import subprocess
from collections.abc import Iterator

import pytest

from tests.ledger.pg_server import Server, bin_dir, start

TEMPLATE = "rubricate_template"
_numbers = itertools.count(1)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Server]:
    """A PostgreSQL server with a migrated template database (skips without PostgreSQL)."""
    pytest.importorskip("psycopg")
    binaries = bin_dir()
    if binaries is None:
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
    try:
        server = start(binaries)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
        pytest.skip(f"PostgreSQL would not start: {exc}")
    try:
        from rubricate.ledger.pg_schema import connect, migrate

        with connect(server.url()) as conn:
            conn.execute(f"CREATE DATABASE {TEMPLATE}")
        with connect(server.url(TEMPLATE)) as conn:
            migrate(conn)
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def pg_url(pg_server: Server) -> str:
    """A fresh migrated database for this test module, copied from the template."""
    from rubricate.ledger.pg_schema import connect

    name = f"rubricate_test_{next(_numbers)}"
    with connect(pg_server.url()) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
    return pg_server.url(name)
