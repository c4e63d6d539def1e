"""A large import stages each chunk in a table emptied by TRUNCATE, so no chunk's rows stay
behind as dead ones for the next chunks to scan again (they would until the commit)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from rubricate.ledger import pg_store
from rubricate.ledger.event import Event
from rubricate.ledger.pg_store import PostgresStore
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
