"""Attacks on the PostgreSQL ledger's write path with real `ledger import` processes: the same
events imported twice at once, an import killed inside its transaction, an import whose
connection is dropped. Nothing is lost, duplicated, or reported as written when it was not;
a failure exits non-zero with a clear message and no traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from rubricate.ledger.pg_facts import LEDGER_LOCK
from rubricate.ledger.pg_store import PostgresStore
from tests.ledger.conftest import TEMPLATE
from tests.ledger.factory import completed_job

psycopg = pytest.importorskip("psycopg")

SRC = str(Path(__file__).resolve().parents[2] / "src")
EVENTS = [e for pr in (1, 2, 3) for e in completed_job(pr, [3] * 5, [4] * 5)]
_names = iter(range(1, 1000))


def _database(pg_server: Any) -> str:
    name = f"rubricate_attack_{next(_names)}"
    with psycopg.connect(pg_server.url(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
    url: str = pg_server.url(name)
    return url


def _import(url: str, tmp_path: Path) -> subprocess.Popen[str]:
    events = tmp_path / "events.jsonl"
    events.write_text("".join(e.to_line() + "\n" for e in EVENTS), encoding="utf-8")
    command = [sys.executable, "-m", "rubricate", "ledger", "import", "--database-url", url]
    return subprocess.Popen(
        [*command, str(events)],
        env={**os.environ, "PYTHONPATH": SRC},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _held(url: str) -> Any:
    """A connection that holds the ledger-wide lock alone: an import inserts its rows, then
    waits for it before it folds their jobs (inside its one transaction)."""
    conn = psycopg.connect(url, autocommit=True)
    conn.execute("SELECT pg_advisory_lock(%s, %s)", LEDGER_LOCK)
    return conn


def _waiters(conn: Any, count: int) -> list[int]:
    """The backends that wait for the lock, once there are `count` of them."""
    for _ in range(600):
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
            " AND wait_event_type = 'Lock' ORDER BY pid"
        ).fetchall()
        if len(rows) >= count:
            return [row[0] for row in rows]
        time.sleep(0.1)
    pytest.fail("the imports never reached the lock")


def _ids(url: str) -> list[str]:
    with PostgresStore(url) as store:
        return [row[0] for row in store.conn.execute("SELECT id FROM rubricate_events")]


def test_the_same_events_imported_twice_at_once_land_once(pg_server: Any, tmp_path: Path) -> None:
    url = _database(pg_server)
    holder = _held(url)
    imports = [_import(url, tmp_path) for _ in range(2)]
    _waiters(holder, 2)
    holder.close()
    outs = [p.communicate(timeout=120) for p in imports]
    assert [p.returncode for p in imports] == [0, 0], outs
    said = sorted(out for out, _ in outs)
    assert said == [
        f"added 0, already present {len(EVENTS)}\n",
        f"added {len(EVENTS)}, already present 0\n",
    ]
    assert sorted(_ids(url)) == sorted(e.id for e in EVENTS)


@pytest.mark.parametrize("how", ["the process killed", "the connection dropped"])
def test_an_import_stopped_inside_its_transaction_writes_nothing(
    pg_server: Any, tmp_path: Path, how: str
) -> None:
    url = _database(pg_server)
    holder = _held(url)
    importing = _import(url, tmp_path)
    try:
        (backend,) = _waiters(holder, 1)
        if how == "the process killed":
            os.killpg(importing.pid, signal.SIGKILL)
        else:
            holder.execute("SELECT pg_terminate_backend(%s)", (backend,))
        out, err = importing.communicate(timeout=120)
    finally:
        holder.close()
    assert importing.returncode != 0
    assert "added" not in out
    assert "Traceback" not in err
    if how == "the connection dropped":
        assert err.startswith("rubricate: error: the database at --database-url failed: "), err
        assert "run it again" in err
    assert _ids(url) == []
    again = _import(url, tmp_path)
    out, err = again.communicate(timeout=120)
    assert again.returncode == 0, err
    assert out == f"added {len(EVENTS)}, already present 0\n"
    assert sorted(_ids(url)) == sorted(e.id for e in EVENTS)
