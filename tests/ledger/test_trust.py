"""Forged ledger lines: natural-key ids, HMAC signatures, `ledger verify` (real git)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rubricate.cli.main import main
from rubricate.ledger.backends import DataBranchStore
from rubricate.ledger.codec import parse_ledger
from rubricate.ledger.event import Event
from rubricate.ledger.paths import job_paths
from rubricate.ledger.store import job_file_events
from rubricate.ledger.trust import KEY_ENV, parse_key, refusal, signature, signed
from tests.ledger.factory import completed_job, event, scored
from tests.ledger.gitutil import bare_remote, branch_files, commit_files

KEY = b"k" * 32
SHARD = "ledger/2024-03.jsonl"


def _forged(pr: int = 1) -> Event:
    """An `approved` event with all 5s and a made-up id, as a human would append it."""
    real = scored("approved", pr, 5, "comment:99#0", [5] * 5, actor="mallory")
    return real.model_copy(update={"id": "f" * 64})


def _append_by_hand(remote: Path, work: Path, line: str) -> None:
    text = branch_files(remote)[SHARD].decode() + line + "\n"
    commit_files(remote, {SHARD: text.encode()}, work, "add an approval")


def _job_events(remote: Path, pr: int, key: bytes | None = None) -> tuple[Event, ...]:
    with DataBranchStore(str(remote), key=key) as store:
        paths = job_paths("o/r", pr)
        return job_file_events(store.read_files(lambda p: p in paths), "o/r", pr, key)


def test_a_made_up_id_is_refused_on_read_and_reported_by_verify(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    remote = bare_remote(tmp_path)
    with DataBranchStore(str(remote)) as store:
        store.append(completed_job(1, [3] * 5, [3] * 5)[:1])
    _append_by_hand(remote, tmp_path / "work", _forged().to_line())
    with DataBranchStore(str(remote)) as store:
        parsed = store.read()
        assert [e.kind for e in parsed.events] == ["first_submission"]
        store.append([event("abandoned", 2, 1, "x")])  # the next run folds the ledger again
    assert [e.kind for e in _job_events(remote, 1)] == ["first_submission"]
    assert main(["ledger", "verify", "--remote", str(remote)]) == 1
    out = capsys.readouterr().out
    assert f"{SHARD}:2: refused: id ffffffffffffffff is not the hash of its natural key" in out


def test_a_job_file_edited_by_hand_is_checked_again() -> None:
    forged = _forged()
    body = {"repo": "o/r", "pr": 1, "events": [json.loads(forged.to_line())]}
    assert job_file_events({"jobs/1.json": json.dumps(body).encode()}, "o/r", 1) == ()


def test_with_a_key_events_are_signed_and_unsigned_ones_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    remote = bare_remote(tmp_path)
    with DataBranchStore(str(remote), key=KEY) as store:
        store.append(completed_job(1, [3] * 5, [3] * 5)[:1])
    [line] = branch_files(remote)[SHARD].decode().splitlines()
    assert json.loads(line)["sig"].startswith("hmac-sha256:")
    # a natural-key id is public knowledge: only the signature tells a forgery apart
    honest_id = scored("approved", 1, 5, "comment:99#0", [5] * 5, actor="mallory")
    _append_by_hand(remote, tmp_path / "work", honest_id.to_line())
    badly = signed(honest_id, b"x" * 32).model_copy(update={"id": honest_id.id})
    _append_by_hand(remote, tmp_path / "work", badly.to_line())
    assert [e.kind for e in _job_events(remote, 1, KEY)] == ["first_submission"]
    with DataBranchStore(str(remote), key=KEY) as store:
        store.append([event("abandoned", 2, 1, "x")])
    assert [e.kind for e in _job_events(remote, 1, KEY)] == ["first_submission"]
    reputation = json.loads(branch_files(remote)["reputation.json"])
    assert reputation["ledger"]["corrupt_lines"] == 2
    monkeypatch.setenv(KEY_ENV, KEY.decode())
    assert main(["ledger", "verify", "--remote", str(remote)]) == 1
    out = capsys.readouterr().out
    assert f"{SHARD}:2: refused: not signed with the ledger key" in out
    assert f"{SHARD}:3: refused: its signature does not match the ledger key" in out


def test_a_key_configured_later_refolds_instead_of_trusting_the_cache(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path)
    with DataBranchStore(str(remote)) as store:
        store.append(completed_job(1, [3] * 5, [3] * 5))
    with DataBranchStore(str(remote), key=KEY) as store:
        store.append([event("abandoned", 2, 1, "x")])
        assert [e.kind for e in store.read().events] == ["abandoned"]
    assert _job_events(remote, 1, KEY) == ()


def test_the_signature_covers_every_field() -> None:
    one = signed(event("abandoned", 1, 0, "a"), KEY)
    assert refusal(one, KEY) is None
    assert refusal(one.model_copy(update={"actor": "mallory"}), KEY) is not None
    assert one.sig == signature(one, KEY)
    assert parse_ledger({SHARD: one.to_line() + "\n"}, KEY).events == (one,)


@pytest.mark.parametrize("sig", ["\u00e9" * 64, "f" * 63 + "\u00e9", ""])
def test_a_signature_that_is_not_ascii_is_refused_not_raised(sig: str) -> None:
    event = signed(scored("review_scored", 1, 4, "comment:5#0", [4] * 5), KEY)
    assert refusal(event, KEY) is None
    forged = event.model_copy(update={"sig": sig})
    assert refusal(forged, KEY) == "refused: its signature does not match the ledger key"


def test_a_short_key_is_an_error() -> None:
    assert parse_key(None) is None
    assert parse_key("  ") is None
    with pytest.raises(ValueError, match="at least 16 bytes"):
        parse_key("none")


def test_verify_provenance_lists_commits_not_made_by_the_bot_with_their_events(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    remote = bare_remote(tmp_path)
    with DataBranchStore(str(remote)) as store:
        store.append(completed_job(1, [3] * 5, [3] * 5)[:1])
    assert main(["ledger", "verify", "--remote", str(remote), "--provenance"]) == 0
    out = capsys.readouterr().out
    assert "provenance: 0 commit(s) not made by rubricate-bot <" in out
    _append_by_hand(remote, tmp_path / "work", _forged().to_line())
    with DataBranchStore(str(remote)) as store:
        store.append([event("abandoned", 2, 1, "x")])  # the bot writes on top of it
    assert main(["ledger", "verify", "--remote", str(remote)]) == 1
    plain = capsys.readouterr().out
    assert "provenance" not in plain
    assert main(["ledger", "verify", "--remote", str(remote), "--provenance"]) == 1
    out = capsys.readouterr().out
    assert out.startswith(plain)
    hand = [line for line in out.splitlines() if "'add an approval'" in line]
    assert len(hand) == 1
    assert " by " in hand[0]
    assert "  + approved o/r#1 v1 by mallory (id ffffffffffff): refused: id" in out
    assert "provenance: 1 commit(s) not made by rubricate-bot <" in out
    data = tmp_path / "data"
    data.mkdir()
    assert main(["ledger", "verify", "--data", str(data), "--provenance"]) == 2


def test_resign_signs_the_bot_events_once_and_leaves_hand_added_lines_unsigned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    remote = bare_remote(tmp_path)
    with DataBranchStore(str(remote)) as store:
        store.append(completed_job(1, [3] * 5, [3] * 5))
    before = parse_ledger({SHARD: branch_files(remote)[SHARD].decode()}).events
    by_hand = scored("approved", 1, 5, "comment:99#0", [5] * 5, actor="mallory")
    _append_by_hand(remote, tmp_path / "work", by_hand.to_line())  # a correct id, by hand
    monkeypatch.setenv(KEY_ENV, KEY.decode())
    # with the key set, the old unsigned events are refused: the gate would lose them all
    assert [e.kind for e in _job_events(remote, 1, KEY)] == []
    assert main(["ledger", "resign", "--remote", str(remote)]) == 0
    out = capsys.readouterr().out
    assert f"signed {len(before)} event(s) in commit " in out
    assert "left unsigned: 1 line(s) not written by rubricate's commits" in out
    after = parse_ledger({SHARD: branch_files(remote)[SHARD].decode()}, KEY)
    assert [e.id for e in after.events] == [e.id for e in before]
    assert [e.model_copy(update={"sig": None}) for e in after.events] == list(before)
    assert [p.message for p in after.corrupt] == ["refused: not signed with the ledger key"]
    assert [e.kind for e in _job_events(remote, 1, KEY)] == [e.kind for e in before]
    assert main(["ledger", "verify", "--remote", str(remote)]) == 1  # the hand line, reported
    capsys.readouterr()
    assert main(["ledger", "resign", "--remote", str(remote)]) == 0
    assert "signed 0 event(s) (nothing to write)" in capsys.readouterr().out
    monkeypatch.delenv(KEY_ENV)
    assert main(["ledger", "resign", "--remote", str(remote)]) == 2
