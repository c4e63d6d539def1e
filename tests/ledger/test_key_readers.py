"""With `RUBRICATE_LEDGER_KEY` set, every reader of the ledger (`ledger verify`, `report`,
`reputation --recompute`) refuses exactly the lines `ledger verify` refuses, and says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rubricate.cli.main import main
from rubricate.ledger.backends import DataBranchStore
from rubricate.ledger.codec import decode_shard, is_shard, parse_ledger
from rubricate.ledger.trust import KEY_ENV, signed
from rubricate.ledger.verify import corrupt_lines, verify_files
from rubricate.report.pool import parse_in_parallel
from tests.ledger.factory import completed_job, scored
from tests.ledger.gitutil import bare_remote, branch_files, commit_files

KEY = b"k" * 32
SHARD = "ledger/2024-03.jsonl"


def _keyed_ledger_with_forgeries(tmp_path: Path) -> Path:
    """A ledger the bot signed, then an unsigned and a badly signed approval added by hand (both
    with correct natural-key ids) and a line with a made-up id."""
    remote = bare_remote(tmp_path)
    with DataBranchStore(str(remote), key=KEY) as store:
        store.append(completed_job(1, [3] * 5, [3] * 5)[:1])
        store.append(completed_job(2, [2] * 5, [2] * 5)[:1])
    unsigned = scored("approved", 1, 5, "comment:99#0", [5] * 5, actor="mallory")
    badly = signed(scored("approved", 2, 5, "comment:98#0", [5] * 5, actor="mallory"), b"x" * 32)
    made_up = unsigned.model_copy(update={"id": "f" * 64, "pr": 3})
    lines = b"".join(e.to_line().encode() + b"\n" for e in (unsigned, badly, made_up))
    commit_files(remote, {SHARD: branch_files(remote)[SHARD] + lines}, tmp_path / "work")
    with DataBranchStore(str(remote), key=KEY) as store:  # the next run derives its files
        store.append(completed_job(4, [3] * 5, [3] * 5)[:1])
    return remote


def _refused(remote: Path) -> list[str]:
    return corrupt_lines(verify_files(branch_files(remote), key=KEY).parsed)


def test_report_refuses_what_verify_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    remote = _keyed_ledger_with_forgeries(tmp_path)
    refused = _refused(remote)
    assert len(refused) == 3
    assert sum("not signed with the ledger key" in line for line in refused) == 1
    monkeypatch.setenv(KEY_ENV, KEY.decode())
    out = tmp_path / "out"
    assert main(["report", "--remote", str(remote), "--out", str(out), "--format", "json"]) == 0
    assert capsys.readouterr().err.splitlines() == refused
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["ledger"]["events"] == 3
    assert report["ledger"]["problems"] == refused
    assert "mallory" not in json.dumps(report["audit"])


def test_reputation_recompute_folds_only_what_verify_keeps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    remote = _keyed_ledger_with_forgeries(tmp_path)
    monkeypatch.setenv(KEY_ENV, KEY.decode())
    # reputation.json was folded by the bot with the key: a recompute with it matches
    assert main(["reputation", "--remote", str(remote), "--recompute"]) == 0
    out = capsys.readouterr().out
    assert "reputation.json matches the ledger" in out
    for line in _refused(remote):
        assert line in out
    assert main(["reputation", "--remote", str(remote), "--recompute", "--json"]) == 0
    captured = capsys.readouterr()
    assert "refused: not signed with the ledger key" in captured.err
    assert json.loads(captured.out)["ledger"]["corrupt_lines"] == 3


def test_shards_parsed_in_parallel_are_checked_with_the_key(tmp_path: Path) -> None:
    remote = _keyed_ledger_with_forgeries(tmp_path)
    texts = {p: decode_shard(d) for p, d in branch_files(remote).items() if is_shard(p)}
    texts["ledger/2024-04.jsonl"] = texts[SHARD]  # a second shard, for a second process
    parsed = parse_in_parallel(texts, workers=2, parallel_from=0, key=KEY)
    expected = parse_ledger(texts, key=KEY)
    assert parsed.events == expected.events
    assert parsed.corrupt == expected.corrupt
    assert parsed.key_id == expected.key_id
