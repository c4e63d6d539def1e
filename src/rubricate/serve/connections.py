"""The worker's PostgreSQL connections: one per running job, kept between jobs (shell).

A new connection costs PostgreSQL a backend, which then loads again the catalog entries, the
PL/pgSQL functions (procrastinate's defer and its triggers) and the ledger's staging table
(`PostgresStore._insert`) a job uses: a worker keeps its jobs' connections in a pool instead.
Before a job gets a connection it is checked (one empty query), so one broken by a database
restart is closed and replaced, never handed out. When the job gives it back, an open
transaction is rolled back and the session's advisory locks (`queue.hold_pr`) are released; a
connection that cannot be reset is closed. A killed worker's connections close with it.
Session settings are not reset: a job changes a setting with `SET LOCAL` only.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.pq import TransactionStatus
from psycopg_pool import ConnectionPool

from rubricate.ledger.pg_schema import check_url, session_setup
from rubricate.ledger.pg_store import PostgresStore

WAIT = 30.0
"""Seconds a job waits for a connection (the database away) before it fails and is retried."""
IDLE = 600.0
"""Seconds an idle connection beyond the first is kept."""


def _release(conn: psycopg.Connection[Any]) -> None:
    """Roll back what the job left open and release its advisory locks, before the connection
    is back in the pool (the next job, often the same PR's, may ask for them at once); close
    a connection where that fails, and the pool replaces it."""
    try:
        if conn.info.transaction_status != TransactionStatus.IDLE:
            conn.rollback()
        conn.execute("SELECT pg_advisory_unlock_all()")
    except psycopg.Error:
        conn.close()


class JobConnections:
    """A pool of at most `size` connections to `url`, opened at the first job."""

    def __init__(self, url: str, size: int = 4) -> None:
        check_url(url)
        self._pool: ConnectionPool[Any] = ConnectionPool(
            url,
            min_size=1,
            max_size=max(1, size),
            kwargs={"autocommit": True, "connect_timeout": 10},
            configure=session_setup,
            check=ConnectionPool.check_connection,
            timeout=WAIT,
            max_idle=IDLE,
            open=False,
            name="rubricate-jobs",
        )
        self._opened = False
        self._lock = threading.Lock()

    @contextmanager
    def borrow(self, timeout: float | None = None) -> Iterator[psycopg.Connection[Any]]:
        """A working connection for one job, given back (reset) when the block ends; waited
        for `timeout` seconds at most (`WAIT` by default)."""
        with self._lock:
            if not self._opened:
                self._pool.open(wait=False)
                self._opened = True
        with self._pool.connection(timeout=timeout) as conn:
            try:
                yield conn
            finally:
                _release(conn)

    def close(self) -> None:
        """Close every connection (a job still holding one keeps it until it gives it back)."""
        with self._lock:
            if self._opened:
                self._pool.close()
            self._opened = False


class BorrowedStore(PostgresStore):
    """The ledger store on a job's borrowed connection; closing it leaves the connection to the
    pool. (The database's migrations were checked when the worker started.)"""

    def __init__(self, conn: psycopg.Connection[Any], *, key: bytes | None = None) -> None:
        # not PostgresStore.__init__: that one opens a connection of its own
        self._attach(conn, key=key)

    def close(self) -> None:
        """Nothing: the pool takes the connection back."""
