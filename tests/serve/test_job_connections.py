"""The worker's pooled job connections: kept between jobs, handed back clean (no transaction, no
advisory lock), and never handed out broken after a PostgreSQL restart."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from rubricate.errors import Busy
from rubricate.ledger.pg_schema import connect
from rubricate.serve.connections import JobConnections
from rubricate.serve.queue import hold_pr
from tests.ledger.pg_server import Server

pytest.importorskip("psycopg_pool")


@pytest.fixture
def connections(db_url: str) -> Iterator[JobConnections]:
    pool = JobConnections(db_url, size=2)
    try:
        yield pool
    finally:
        pool.close()


def backend(conn: psycopg.Connection[object]) -> int:
    row = conn.execute("SELECT pg_backend_pid()").fetchone()
    assert row is not None
    return int(row[0])


def test_a_jobs_connection_is_kept_for_the_next_job(db_url: str) -> None:
    pool = JobConnections(db_url, size=1)
    try:
        with pool.borrow() as conn:
            first = backend(conn)
            conn.execute("SET application_name = 'kept'")  # a new connection would not have it
        with pool.borrow() as conn:
            assert backend(conn) == first
            assert conn.execute("SHOW application_name").fetchone() == ("kept",)
            assert conn.execute("SHOW TimeZone").fetchone() == ("UTC",)
    finally:
        pool.close()


def test_a_prs_lock_is_released_when_its_job_gives_the_connection_back(
    connections: JobConnections, db_url: str
) -> None:
    with connections.borrow() as conn:
        hold_pr(conn, "o/r", 7)
        with connect(db_url) as other, pytest.raises(Busy):
            hold_pr(other, "o/r", 7)
    with connect(db_url) as other:
        hold_pr(other, "o/r", 7)  # free at once: the same PR's next job runs right after


def test_a_job_that_failed_inside_a_transaction_leaves_a_clean_connection(
    connections: JobConnections, db_url: str
) -> None:
    with pytest.raises(SystemExit), connections.borrow() as conn:  # noqa: PT012
        hold_pr(conn, "o/r", 8)
        conn.execute("BEGIN")
        conn.execute("CREATE TABLE left_behind (x int)")
        raise SystemExit("killed mid-transaction")
    with connections.borrow() as conn:
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        assert conn.execute("SELECT to_regclass('left_behind')").fetchone() == (None,)
    with connect(db_url) as other:
        hold_pr(other, "o/r", 8)


def test_a_connection_broken_by_a_database_restart_is_replaced(own_server: Server) -> None:
    pool = JobConnections(own_server.url(), size=1)
    try:
        with pool.borrow() as conn:
            before = backend(conn)
        own_server.crash_restart()  # the idle connection in the pool is now broken
        with pool.borrow() as conn:
            assert backend(conn) != before
        with pytest.raises(psycopg.OperationalError), pool.borrow() as conn:  # noqa: PT012
            own_server.crash_restart()  # broken while a job holds it
            conn.execute("SELECT 1")
        with pool.borrow() as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
    finally:
        pool.close()
