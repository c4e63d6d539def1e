"""A `ledger verify --fix` process killed while it writes leaves the branch as it was: its files
go to `git fast-import` as the fold gives them, and nothing reaches the branch before the push.

The process is real and killed with SIGKILL; a `git` found first on its PATH holds
`git fast-import` until the test has killed it (the code has no hook for this)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from rubricate.ledger.backends import DataBranchStore
from rubricate.ledger.store import RetryPolicy
from tests.ledger.factory import completed_job
from tests.ledger.gitutil import BRANCH, bare_remote, git

HOLD = """#!/bin/sh
if [ "$1" = fast-import ]; then
    : > "$FIX_STARTED"
    i=0
    while [ ! -e "$FIX_GO" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
fi
exec "$REAL_GIT" "$@"
"""


def _stale_branch(tmp_path: Path) -> Path:
    remote = bare_remote(tmp_path)
    with DataBranchStore(str(remote), retry=RetryPolicy(base_delay=0.0)) as store:
        store.append(completed_job(1, [4] * 5, [5] * 5) + completed_job(2, [3] * 5, [3] * 5))
    work = tmp_path / "hand"
    git("clone", "--quiet", "--branch", BRANCH, str(remote), str(work))
    (work / "jobs" / "1.json").write_bytes(b"{}\n")
    (work / "reputation.json").unlink()
    git("commit", "--quiet", "-am", "hand", cwd=work)
    git("push", "--quiet", "origin", BRANCH, cwd=work)
    return remote


def _verify(remote: Path, *more: str, env: dict[str, str] | None = None) -> int:
    command = [sys.executable, "-m", "rubricate", "ledger", "verify", "--remote", str(remote)]
    return subprocess.run([*command, *more], capture_output=True, env=env, check=False).returncode


def test_a_fix_killed_while_it_writes_leaves_the_branch_as_it_was(tmp_path: Path) -> None:
    remote = _stale_branch(tmp_path)
    before = git("rev-parse", BRANCH, cwd=remote)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").write_text(HOLD)
    (bin_dir / "git").chmod(0o755)
    started = tmp_path / "started"
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "REAL_GIT": shutil.which("git") or "git",
        "FIX_STARTED": str(started),
        "FIX_GO": str(tmp_path / "go"),
    }
    command = [sys.executable, "-m", "rubricate", "ledger", "verify", "--fix"]
    fixing = subprocess.Popen(
        [*command, "--remote", str(remote)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        for _ in range(600):  # the fold found the stale file and started writing
            if started.exists() or fixing.poll() is not None:
                break
            time.sleep(0.1)
        assert started.exists(), "the fix never started git fast-import"
    finally:
        os.killpg(fixing.pid, signal.SIGKILL)
        fixing.wait()
    assert fixing.returncode == -signal.SIGKILL
    assert git("rev-parse", BRANCH, cwd=remote) == before
    assert _verify(remote) == 1  # still stale: nothing landed
    assert _verify(remote, "--fix") == 0
    assert _verify(remote) == 0
    assert git("rev-parse", f"{BRANCH}~1", cwd=remote) == before
