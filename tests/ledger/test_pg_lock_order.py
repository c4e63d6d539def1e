"""Two writer transactions that each append twice, the second append giving the job to the
author the other transaction touched first, finish without a deadlock when each takes its locks
up front (`PostgresStore.lock_for`), as the worker does."""

from __future__ import annotations

import contextlib
import threading
from typing import Any

import pytest

from rubricate.ledger.event import Event
from rubricate.ledger.pg_store import PostgresStore
from tests.ledger.factory import event

psycopg = pytest.importorskip("psycopg")

BOUND = 60
"""Seconds both writers must finish in."""
MEET = 3
"""Seconds a writer waits for the other to have made its first append."""


def _writer(url: str, appends: list[list[Event]], met: threading.Barrier, out: list[Any]) -> None:
    try:
        with PostgresStore(url) as store, store.conn.transaction():
            store.lock_for([e for events in appends for e in events])
            store.append(appends[0])
            with contextlib.suppress(threading.BrokenBarrierError):
                met.wait(MEET)  # both hold their first locks now, unless one waits for the other
            store.append(appends[1])
        out.append("done")
    except psycopg.Error as exc:
        out.append(exc)


def test_a_second_append_that_moves_a_job_does_not_deadlock(pg_url: str) -> None:
    with PostgresStore(pg_url) as store:
        store.append(
            [
                event("first_submission", 1, 10, "s1", author="ann"),
                event("first_submission", 2, 10, "s2", author="bob"),
            ]
        )
    one = [
        [event("abandoned", 1, 20, "x1", author="ann")],
        [event("first_submission", 1, 1, "e1", author="bob")],
    ]
    two = [
        [event("abandoned", 2, 20, "x2", author="bob")],
        [event("first_submission", 2, 1, "e2", author="ann")],
    ]
    met = threading.Barrier(2)
    outcomes: list[list[Any]] = [[], []]
    threads = [
        threading.Thread(target=_writer, args=(pg_url, appends, met, out))
        for appends, out in zip((one, two), outcomes, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(BOUND)
    assert not any(thread.is_alive() for thread in threads)
    assert outcomes == [["done"], ["done"]]
    with PostgresStore(pg_url) as store:
        authors = dict(store.conn.execute("SELECT pr, author FROM rubricate_jobs").fetchall())
    assert authors == {1: "bob", 2: "ann"}
