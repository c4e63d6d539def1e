"""A large import leaves nothing behind for its later chunks to walk again: it stages each chunk
in a table emptied by TRUNCATE (deleted rows would stay, dead, until the commit), and writes each
author's tally once at the end, not once a chunk (each update a row version kept until then)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from rubricate.ledger import pg_facts, pg_store
from rubricate.ledger.event import Event
from rubricate.ledger.pg_store import PostgresStore, Scope
from rubricate.ledger.tally import Tally
from tests.ledger.factory import completed_job

pytest.importorskip("psycopg")


def test_the_staging_table_holds_one_chunk_not_all_the_earlier_ones(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pg_store, "APPEND_CHUNK", 400)
    sizes: list[int] = []
    insert = PostgresStore._insert

    def measured(store: PostgresStore, batch: Sequence[tuple[Event, str]]) -> list[Any]:
        added = insert(store, batch)
        row = store.conn.execute("SELECT pg_relation_size('rubricate_new')").fetchone()
        sizes.append(int(row[0]) if row else 0)
        return added

    monkeypatch.setattr(PostgresStore, "_insert", measured)
    events = [e for pr in range(1, 1001) for e in completed_job(pr, [3] * 5, [4] * 5, hours=pr)]
    with PostgresStore(pg_url) as store:
        assert store.append(events).added == 2000
        assert store.lines()[-1][1] == events[-1].to_line()
    assert len(sizes) == 5
    assert max(sizes) <= sizes[0]


def test_an_import_writes_each_authors_tally_once_and_right(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pg_store, "APPEND_CHUNK", 30)
    written: list[tuple[str, str]] = []
    store_tallies = pg_facts.store_tallies

    def counted(conn: Any, tallies: Mapping[tuple[str, str], Tally]) -> None:
        written.extend(tallies)
        store_tallies(conn, tallies)

    monkeypatch.setattr(pg_facts, "store_tallies", counted)
    monkeypatch.setattr(pg_store, "store_tallies", counted)
    authors = ("ann", "bob", "cy")
    events = [
        e
        for pr in range(1, 61)
        for e in completed_job(pr, [3] * 5, [4] * 5, hours=pr, author=authors[pr % 3], repo="o/t")
    ]
    with PostgresStore(pg_url, scope=Scope(repo="o/t")) as store:
        assert store.append(events).added == 120  # four chunks
        imported = store.reputation()
        assert sorted(written) == sorted(("o/t", a) for a in authors)
        store.rebuild()  # every tally counted again from the jobs' facts
        assert store.reputation() == imported
