"""`ledger resign` signs only lines that rubricate's own commits wrote, whatever git thinks of a
shard and whatever is pushed while it runs (real bare repositories, real git processes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rubricate.bot.jobstate import job_state
from rubricate.cli.main import main
from rubricate.ledger.backends import DataBranchStore
from rubricate.ledger.codec import parse_ledger
from rubricate.ledger.event import Event
from rubricate.ledger.paths import job_paths
from rubricate.ledger.store import job_file_events
from rubricate.ledger.trust import KEY_ENV, refusal
from tests.ledger.factory import completed_job, event, scored
from tests.ledger.gitutil import BRANCH, bare_remote, branch_files, commit_files, git

KEY = b"k" * 32
SHARD = "ledger/2024-03.jsonl"
REPO_ROOT = Path(__file__).resolve().parents[2]
FORGED = scored("approved", 1, 5, "comment:99#0", [5] * 5, actor="mallory")
"""An approval with a correct natural-key id, written by hand: only provenance tells it apart."""


def _bot_ledger(remote: Path) -> list[Event]:
    """Rubricate's own commits: a submitted job, unsigned (no key configured yet)."""
    with DataBranchStore(str(remote)) as store:
        store.append(completed_job(1, [3] * 5, [3] * 5)[:1])
        store.append([event("abandoned", 2, 1, "x")])
    return list(parse_ledger({SHARD: branch_files(remote)[SHARD].decode()}).events)


def _add_by_hand(remote: Path, work: Path, *lines: bytes, message: str = "hand") -> None:
    text = branch_files(remote)[SHARD] + b"".join(line + b"\n" for line in lines)
    commit_files(remote, {SHARD: text}, work, message)


def _line_states(remote: Path) -> dict[str, str | None]:
    """Each event line's id → why the key refuses it (None: signed with the key)."""
    states = {}
    for line in branch_files(remote)[SHARD].split(b"\n"):
        if line.startswith(b"{"):
            parsed = Event.model_validate_json(line)
            states[parsed.id] = refusal(parsed, KEY)
    return states


def _gate_sees(remote: Path, pr: int) -> list[str]:
    """The next run, with the key: it appends, then the gate reads the PR's job file."""
    with DataBranchStore(str(remote), key=KEY) as store:
        store.append([event("abandoned", 3, 2, "next-run")])
        paths = job_paths("o/r", pr)
        files = store.read_files(lambda p: p in paths)
    events = job_file_events(files, "o/r", pr, KEY)
    assert job_state(events, "o/r", pr).approval is None  # no approval stands: no green gate
    return [e.kind for e in events]


@pytest.mark.parametrize("same_commit", [False, True], ids=["nul-earlier", "nul-same-commit"])
def test_a_nul_byte_in_the_shard_hides_no_hand_added_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    same_commit: bool,
) -> None:
    remote, work = bare_remote(tmp_path), tmp_path / "work"
    bot = _bot_ledger(remote)
    if same_commit:
        _add_by_hand(remote, work, b"\0", FORGED.to_line().encode(), message="add an approval")
    else:
        _add_by_hand(remote, work, b"\0")  # git now calls the shard binary
        _add_by_hand(remote, work, FORGED.to_line().encode(), message="add an approval")
    assert "Bin" in git("show", "--stat", "--format=", BRANCH, cwd=remote)

    assert main(["ledger", "verify", "--remote", str(remote), "--provenance"]) == 1
    assert "  + approved o/r#1 v1 by mallory" in capsys.readouterr().out

    monkeypatch.setenv(KEY_ENV, KEY.decode())
    assert main(["ledger", "resign", "--remote", str(remote)]) == 0
    out = capsys.readouterr().out
    assert f"signed {len(bot)} event(s) in commit " in out
    assert "left unsigned: 1 line(s)" in out
    assert _line_states(remote) == {
        **{e.id: None for e in bot},
        FORGED.id: "refused: not signed with the ledger key",
    }
    # the NUL line removed by hand: the forged approval is still refused and reported
    tidy = branch_files(remote)[SHARD].replace(b"\0\n", b"")
    commit_files(remote, {SHARD: tidy}, work, "remove the NUL line")
    assert main(["ledger", "verify", "--remote", str(remote)]) == 1
    assert "refused: not signed with the ledger key" in capsys.readouterr().out
    assert _gate_sees(remote, 1) == ["first_submission"]


PRE_PUSH = """#!/bin/sh
# Before rubricate's first push: someone else pushes a commit (once).
[ -e "$RACE_MARK" ] && exit 0
: > "$RACE_MARK"
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_PREFIX
GIT_CONFIG_GLOBAL=/dev/null git -C "$RACE_WORK" push --quiet origin HEAD:refs/heads/rubricate-data
"""


def test_a_line_pushed_while_resign_runs_is_checked_before_it_is_signed(tmp_path: Path) -> None:
    remote, work = bare_remote(tmp_path), tmp_path / "work"
    bot = _bot_ledger(remote)
    _add_by_hand(remote, work, FORGED.to_line().encode(), message="an earlier hand line")
    # the racing commit: another approval, and a copy of one of the bot's own lines
    raced = scored("approved", 2, 5, "comment:98#0", [5] * 5, actor="mallory")
    copied = bot[0].to_line().encode()
    (work / SHARD).write_bytes(branch_files(remote)[SHARD] + raced.to_line().encode() + b"\n")
    with (work / SHARD).open("ab") as shard:
        shard.write(copied + b"\n")
    git("commit", "--quiet", "-am", "pushed while resign runs", cwd=work)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "pre-push").write_text(PRE_PUSH)
    (hooks / "pre-push").chmod(0o755)
    (tmp_path / "gitconfig").write_text(f"[core]\n\thooksPath = {hooks}\n")
    env = {
        **os.environ,
        KEY_ENV: KEY.decode(),
        "GIT_CONFIG_GLOBAL": str(tmp_path / "gitconfig"),
        "RACE_MARK": str(tmp_path / "raced"),
        "RACE_WORK": str(work),
    }
    command = [sys.executable, "-m", "rubricate", "ledger", "resign", "--remote", str(remote)]
    proc = subprocess.run(
        command, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "raced").exists()  # the race happened: the first push was rejected
    log = git("log", "--format=%s", BRANCH, cwd=remote).splitlines()
    assert log[:2] == ["Rebuild the derived files", "pushed while resign runs"]
    # signed: each line the bot wrote, as many times as it wrote it; the copy, the hand lines
    # and the raced line stay unsigned
    assert f"signed {len(bot)} event(s) in commit " in proc.stdout
    assert "left unsigned: 3 line(s)" in proc.stdout
    lines = [json.loads(line) for line in branch_files(remote)[SHARD].split(b"\n") if line]
    signed = [(line["id"], "sig" in line) for line in lines]
    assert sorted(signed) == sorted(
        [
            *((e.id, True) for e in bot),
            (bot[0].id, False),
            (FORGED.id, False),
            (raced.id, False),
        ]
    )
    assert _gate_sees(remote, 1) == ["first_submission"]  # a copy takes nothing from the bot
    assert _gate_sees(remote, 2) == ["abandoned"]
