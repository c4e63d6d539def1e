"""A data branch's private repository starts no housekeeping process after a fetch and keeps
fast-import's pack as written (no process unpacks it): an append starts fewer git processes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rubricate.ledger.backends import DataBranchStore
from tests.ledger.factory import completed_job, event
from tests.ledger.gitutil import bare_remote


def _started(trace: Path) -> list[list[str]]:
    """The argv of every git process the trace saw start."""
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    return [e["argv"][1:] for e in events if e["event"] == "start"]


def test_an_append_starts_no_maintenance_and_no_unpacking_of_its_own_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    remote = bare_remote(tmp_path)
    with DataBranchStore(str(remote)) as store:
        store.append(completed_job(1, [4, 4, 4, 4, 4], [5, 5, 5, 5, 5]))
    trace = tmp_path / "trace.json"
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    with DataBranchStore(str(remote)) as store:
        assert store.append([event("rated", 1, 40, "r", rating=3)]).added == 1
    started = _started(trace)
    assert any(argv[:1] == ["fast-import"] for argv in started)
    assert not [argv for argv in started if argv[:1] == ["maintenance"]]
    assert ["unpack-objects", "-q"] not in started  # (the remote's own unpacking has its header)
