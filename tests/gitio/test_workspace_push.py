"""Attacks on the data branch's write path with real processes and a real bare remote: a remote
that refuses a push (a pre-receive hook, a full disk), a push that landed though git reports a
failure, a push that hangs, a writer killed while its push waits on the remote.

Nothing may be lost, duplicated, or reported as written when it was not: a push is a lost race
(planned again on the new tip) only when the branch moved; when it is still where the write
began, the remote refused it, and the run fails at once with the remote's own words."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rubricate.errors import DataBranchError
from rubricate.gitio import workspace
from rubricate.ledger.backends import DataBranchStore
from rubricate.ledger.codec import decode_shard, is_shard, parse_ledger
from rubricate.ledger.store import RetryPolicy
from tests.ledger.factory import completed_job, event
from tests.ledger.gitutil import BRANCH, bare_remote, branch_files, git

SRC = str(Path(__file__).resolve().parents[2] / "src")
NEW = event("abandoned", 2, 2, "new-delivery")
REFUSE = """#!/bin/sh
echo run >> "$0.calls"
echo '{said}' >&2
exit 1
"""


def _hanging_up_after_push(after: str = "", before_others: str = "") -> str:
    """A `git` that runs the real push, then `after`, then fails as a dropped connection does;
    other commands run `before_others` first."""
    return f"""#!/bin/sh
if [ "$1" = push ]; then
    "$REAL_GIT" "$@"
{after}    echo 'fatal: the remote end hung up unexpectedly' >&2
    exit 128
fi
{before_others}exec "$REAL_GIT" "$@"
"""


FAIL_AFTER_PUSH = _hanging_up_after_push()
FAIL_AFTER_PUSH_THEN_UNREADABLE = _hanging_up_after_push(
    '    : > "$0.pushed"\n',
    """if [ "$1" = ls-remote ] && [ -e "$0.pushed" ]; then
    echo 'fatal: unable to access the remote: Could not resolve host' >&2
    exit 128
fi
""",
)
FAIL_AFTER_PUSH_THEN_BUILT_ON = _hanging_up_after_push(
    """    tip=$("$REAL_GIT" --git-dir="$REMOTE" rev-parse refs/heads/rubricate-data)
    next=$(echo on top | "$REAL_GIT" -c user.name=o -c user.email=o@example.com \\
        --git-dir="$REMOTE" commit-tree "$tip^{tree}" -p "$tip")
    "$REAL_GIT" --git-dir="$REMOTE" update-ref refs/heads/rubricate-data "$next"
"""
)
HOLD = """#!/bin/sh
: > "$PUSH_STARTED"
i=0
while [ ! -e "$PUSH_GO" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
exit 0
"""


def _ledger(tmp_path: Path) -> Path:
    remote = bare_remote(tmp_path)
    with DataBranchStore(str(remote)) as store:
        store.append(completed_job(1, [3] * 5, [3] * 5)[:1])
    (tmp_path / "new.jsonl").write_text(NEW.to_line() + "\n", encoding="utf-8")
    return remote


def _hook(remote: Path, text: str) -> Path:
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(text, encoding="utf-8")
    hook.chmod(0o755)
    return hook


def _append(
    remote: Path, tmp_path: Path, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "rubricate", "ledger", "append", "--remote", str(remote)]
    return subprocess.Popen(
        [*command, str(tmp_path / "new.jsonl")],
        env={**(env or os.environ), "PYTHONPATH": SRC},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _ids(remote: Path) -> list[str]:
    files = branch_files(remote)
    parsed = parse_ledger({p: decode_shard(d) for p, d in files.items() if is_shard(p)})
    assert parsed.corrupt == parsed.duplicates == ()
    return [e.id for e in parsed.events]


@pytest.mark.parametrize(
    "said",
    [
        "refused by policy: the data branch is frozen",
        "error: failed to update ref: No space left on device",  # a full disk, in the hook's words
        "! [rejected] non-fast-forward (fetch first)",  # a race's words, from a hook
    ],
)
def test_a_refused_push_fails_at_once_with_the_remote_s_words(tmp_path: Path, said: str) -> None:
    remote = _ledger(tmp_path)
    before = git("rev-parse", BRANCH, cwd=remote)
    hook = _hook(remote, REFUSE.format(said=said))
    out, err = _append(remote, tmp_path).communicate(timeout=120)
    assert "Traceback" not in err
    assert said.split(":")[-1].strip() in err, err
    assert "pre-receive hook declined" in err
    assert "added" not in out
    assert hook.with_name("pre-receive.calls").read_text().count("run") == 1  # not retried
    assert git("rev-parse", BRANCH, cwd=remote) == before


def _append_through(remote: Path, tmp_path: Path, script: str) -> tuple[int, str, str]:
    """`ledger append` of NEW with `git` replaced by `script` (which runs the real one)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").write_text(script, encoding="utf-8")
    (bin_dir / "git").chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "REAL_GIT": shutil.which("git") or "git",
        "REMOTE": str(remote),
    }
    appending = _append(remote, tmp_path, env)
    out, err = appending.communicate(timeout=120)
    return appending.returncode, out, err


@pytest.mark.parametrize("script", [FAIL_AFTER_PUSH, FAIL_AFTER_PUSH_THEN_BUILT_ON])
def test_a_push_that_landed_though_git_says_it_failed_is_reported_written(
    tmp_path: Path, script: str
) -> None:
    """The remote took the push, then the connection dropped before git heard so (and someone
    else may have pushed on top of it at once)."""
    remote = _ledger(tmp_path)
    code, out, err = _append_through(remote, tmp_path, script)
    assert code == 0, err
    assert "added 1, already present 0" in out
    assert _ids(remote).count(NEW.id) == 1


def test_a_push_that_landed_then_an_unreadable_remote_says_it_may_have_landed(
    tmp_path: Path,
) -> None:
    """The remote took the push, the connection dropped, and the branch cannot be read again:
    the push's own error, and that it may be on the branch; a run again adds nothing twice."""
    remote = _ledger(tmp_path)
    code, out, err = _append_through(remote, tmp_path, FAIL_AFTER_PUSH_THEN_UNREADABLE)
    assert code == 1
    assert "Traceback" not in err
    assert "hung up unexpectedly" in err
    assert "may have landed: run it again" in err
    assert "added" not in out
    assert _ids(remote).count(NEW.id) == 1
    out, err = _append(remote, tmp_path).communicate(timeout=120)
    assert "added 0, already present 1" in out, err
    assert _ids(remote).count(NEW.id) == 1


def test_a_push_that_hangs_fails_with_a_timeout_and_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    remote = _ledger(tmp_path)
    _hook(remote, HOLD)
    go = tmp_path / "go"
    monkeypatch.setenv("PUSH_STARTED", str(tmp_path / "started"))
    monkeypatch.setenv("PUSH_GO", str(go))
    monkeypatch.setattr(workspace, "PUSH_TIMEOUT", 2.0)
    try:
        with (
            DataBranchStore(str(remote), retry=RetryPolicy(base_delay=0.0)) as store,
            pytest.raises(DataBranchError, match="timed out") as raised,
        ):
            store.append([NEW])
    finally:
        go.touch()
    assert "run it again" in str(raised.value)
    for _ in range(100):  # the remote may still take the push that timed out
        if NEW.id in _ids(remote):
            break
        time.sleep(0.1)
    with DataBranchStore(str(remote)) as store:
        store.append([NEW])
    assert _ids(remote).count(NEW.id) == 1


def test_a_writer_killed_while_its_push_waits_loses_and_duplicates_nothing(
    tmp_path: Path,
) -> None:
    """SIGKILL between the objects' upload and the ref's update (a pre-receive hook holds it);
    the remote may or may not finish the push: an append run again leaves the event once."""
    remote = _ledger(tmp_path)
    _hook(remote, HOLD)
    started, go = tmp_path / "started", tmp_path / "go"
    env = {**os.environ, "PUSH_STARTED": str(started), "PUSH_GO": str(go)}
    appending = _append(remote, tmp_path, env)
    try:
        for _ in range(600):
            if started.exists() or appending.poll() is not None:
                break
            time.sleep(0.1)
        assert started.exists(), appending.communicate()
    finally:
        os.killpg(appending.pid, signal.SIGKILL)
        appending.wait()
        go.touch()
    (remote / "hooks" / "pre-receive").unlink()
    again = _append(remote, tmp_path)
    _, err = again.communicate(timeout=120)
    assert again.returncode == 0, err
    assert _ids(remote).count(NEW.id) == 1
    verify = [sys.executable, "-m", "rubricate", "ledger", "verify", "--remote", str(remote)]
    checked = subprocess.run(verify, env={**os.environ, "PYTHONPATH": SRC}, capture_output=True)
    assert checked.returncode == 0, checked.stdout
