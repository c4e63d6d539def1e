"""`ledger import --database-url` reads its file a chunk at a time inside one transaction."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest

from rubricate.cli import ledger_cmd
from rubricate.cli.main import main
from rubricate.ledger import pg_store
from rubricate.ledger.event import Event
from rubricate.ledger.pg_store import PostgresStore
from tests.ledger.factory import completed_job

psycopg = pytest.importorskip("psycopg")

CHUNK = 10


def _lines(first_pr: int, jobs: int, author: str = "ann") -> list[str]:
    return [
        e.to_line()
        for pr in range(first_pr, first_pr + jobs)
        for e in completed_job(pr, [3] * 5, [4] * 5, hours=pr, author=author)
    ]


def _state(url: str) -> tuple[list[tuple[str, str]], dict[str, Any]]:
    with PostgresStore(url) as store:
        return store.lines(), store.reputation()


@pytest.fixture(autouse=True)
def _small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pg_store, "APPEND_CHUNK", CHUNK)


def test_a_bad_line_after_the_first_chunk_changes_nothing(
    pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    present = tmp_path / "present.jsonl"
    present.write_text("\n".join(_lines(1, 3)) + "\n", encoding="utf-8")
    assert main(["ledger", "import", "--database-url", pg_url, str(present)]) == 0
    before = _state(pg_url)
    good = _lines(10, 15, author="bob")  # 30 events: three chunks before the bad line
    stream = tmp_path / "bad.jsonl"
    stream.write_text("\n".join([*good, '{"kind": "rated"}', *_lines(40, 2)]) + "\n", "utf-8")
    capsys.readouterr()
    assert main(["ledger", "import", "--database-url", pg_url, str(stream)]) == 2
    err = capsys.readouterr().err
    assert "line 31: " in err
    assert "no events were appended" in err
    assert _state(pg_url) == before
    assert before[1]["ledger"]["jobs"] == 3


def test_an_import_holds_a_chunk_of_events_not_the_file(
    pg_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stream = tmp_path / "events.jsonl"
    stream.write_text("\n".join(_lines(100, 150)) + "\n", encoding="utf-8")  # 300 events
    parse = ledger_cmd.event_from_dict
    live: list[int] = []

    def counting(raw: dict[str, Any]) -> Event:
        if len(live) % 25 == 0:
            live.append(sum(isinstance(o, Event) for o in gc.get_objects()))
        else:
            live.append(live[-1])
        return parse(raw)

    monkeypatch.setattr(ledger_cmd, "event_from_dict", counting)
    gc.collect()
    baseline = sum(isinstance(o, Event) for o in gc.get_objects())
    capsys.readouterr()
    assert main(["ledger", "import", "--database-url", pg_url, str(stream), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["added"] == 300
    assert len(live) == 300
    assert max(live) - baseline < 5 * CHUNK
