"""Corrupt input on the data branch: a bad ledger line in the middle of a shard, a job file that
is not one. Every reader says which file and line and what is wrong, and loses nothing else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rubricate.cli.main import main
from rubricate.errors import LedgerError
from rubricate.ledger.backends import DataBranchStore
from rubricate.ledger.store import job_file_events
from tests.ledger.factory import completed_job, event
from tests.ledger.gitutil import bare_remote, branch_files, commit_files

SHARD = "ledger/2024-03.jsonl"
JOB = completed_job(1, [3] * 5, [4] * 5)
GOOD = {"repo": "o/r", "pr": 1, "events": [json.loads(e.to_line()) for e in JOB]}
LINES: dict[str, bytes] = {
    "truncated JSON": b'{"actor": "rev", "at": "2024-03-0',
    "binary garbage": b"\xff\xfe\x00\x80garbage",
    "a NUL byte": b'{"actor": "r\x00ev"}',
    "a JSON array": b"[1, 2, 3]",
    "a JSON string": b'"an event"',
    "a byte-order mark": b'\xef\xbb\xbf{"kind": "approved"}',
}


@pytest.mark.parametrize("how", sorted(LINES))
def test_a_corrupt_line_in_the_middle_of_a_shard_is_located_and_nothing_else_is_lost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    remote = bare_remote(tmp_path)
    with DataBranchStore(str(remote)) as store:
        store.append(JOB)
    lines = branch_files(remote)[SHARD].split(b"\n")
    lines.insert(1, LINES[how])
    commit_files(remote, {SHARD: b"\n".join(lines)}, tmp_path / "work", how)
    events = tmp_path / "new.jsonl"
    events.write_text(event("abandoned", 2, 2, "next").to_line() + "\n", encoding="utf-8")
    assert main(["ledger", "append", "--remote", str(remote), str(events)]) == 0
    capsys.readouterr()
    assert main(["ledger", "verify", "--remote", str(remote)]) == 1
    out = capsys.readouterr().out
    assert f"{SHARD}:2: " in out
    assert f"{len(JOB) + 1} events in 1 shard(s): 1 problem(s)" in out
    assert main(["ledger", "export", "--remote", str(remote)]) == 0
    exported, err = capsys.readouterr()
    assert f"{SHARD}:2: " in err
    assert len(exported.splitlines()) == len(JOB) + 1
    assert LINES[how] in branch_files(remote)[SHARD]  # kept byte for byte, for a human to see


def _body(value: object) -> bytes:
    return json.dumps(value).encode()


JOB_FILES: dict[str, tuple[bytes, str]] = {
    "not JSON": (b'{"repo": "o/r", "pr": 1, "events": [', "not JSON (line 1 column 37"),
    "a NUL byte": (_body(GOOD)[:30] + b"\0" + _body(GOOD)[30:], "not JSON (line 1 column 31"),
    "not an object": (b"[1]", "a JSON list, not an object"),
    "events not a list": (_body({**GOOD, "events": {"0": 1}}), "its `events` is not a list"),
    "an event of the wrong type": (_body({**GOOD, "events": [*GOOD["events"], 7]}), "events[2]"),
    "an event with a bad field": (
        _body({**GOOD, "events": [GOOD["events"][0], {**GOOD["events"][1], "pr": "one"}]}),
        "events[1]: pr:",
    ),
}


@pytest.mark.parametrize("how", sorted(JOB_FILES))
def test_a_job_file_that_is_not_one_says_where_and_what(how: str) -> None:
    data, said = JOB_FILES[how]
    assert len(job_file_events({"jobs/1.json": _body(GOOD)}, "o/r", 1)) == len(JOB)
    with pytest.raises(LedgerError) as raised:
        job_file_events({"jobs/1.json": data}, "o/r", 1)
    assert str(raised.value).startswith("jobs/1.json: not a valid job file: ")
    assert said in str(raised.value)
    assert "ledger verify --fix" in str(raised.value)


def test_another_job_s_broken_file_never_fails_this_job_s_read() -> None:
    """Only the job's own paths are read (a merge group reads each of its jobs' files once)."""
    files = {"jobs/1.json": _body(GOOD), "jobs/2.json": JOB_FILES["not an object"][0]}
    assert len(job_file_events(files, "o/r", 1)) == len(JOB)
    with pytest.raises(LedgerError, match=r"jobs/2\.json"):
        job_file_events(files, "o/r", 2)
