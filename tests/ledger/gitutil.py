"""Real git repositories for store tests: bare remotes, hand-made commits, branch contents."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

from rubricate.gitio.workspace import GitWorkspace
from rubricate.ledger.codec import decode_shard, is_shard, parse_ledger
from rubricate.ledger.derive import derive_files
from rubricate.ledger.paths import is_derived
from rubricate.ledger.verify import recorded_config

BRANCH = "rubricate-data"
IDENTITY = ("-c", "user.name=Test", "-c", "user.email=test@example.com")


def git(*args: str, cwd: Path | None = None, data: bytes | None = None) -> str:
    """Run git and return stdout; fail the test on error."""
    proc = subprocess.run(
        ["git", *IDENTITY, *args], cwd=cwd, input=data, capture_output=True, check=False
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout.decode().strip()


def fetched_blobs(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The blob ids of each fetch request a data-branch store makes from now on."""
    calls: list[list[str]] = []
    prefetch = GitWorkspace._prefetch

    def spy(self: GitWorkspace, ids: list[str]) -> None:
        calls.append(list(ids))
        prefetch(self, ids)

    monkeypatch.setattr(GitWorkspace, "_prefetch", spy)
    return calls


def bare_remote(root: Path, name: str = "remote.git") -> Path:
    """A new, empty bare repository."""
    path = root / name
    git("init", "--quiet", "--bare", str(path))
    return path


def commit_files(
    remote: Path, files: Mapping[str, bytes], work: Path, message: str = "hand"
) -> None:
    """Commit these files on top of the branch (or as its first commit) and push them."""
    if not work.exists():
        git("init", "--quiet", str(work))
        git("remote", "add", "origin", str(remote), cwd=work)
        if git("ls-remote", str(remote), f"refs/heads/{BRANCH}"):
            git("fetch", "--quiet", "origin", BRANCH, cwd=work)
            git("checkout", "--quiet", "-B", BRANCH, f"origin/{BRANCH}", cwd=work)
        else:
            git("checkout", "--quiet", "--orphan", BRANCH, cwd=work)
    else:
        git("fetch", "--quiet", "origin", BRANCH, cwd=work)
        git("reset", "--quiet", "--hard", f"origin/{BRANCH}", cwd=work)
    for path, data in files.items():
        target = work / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    git("add", "--all", cwd=work)
    git("commit", "--quiet", "-m", message, cwd=work)
    git("push", "--quiet", "origin", BRANCH, cwd=work)


def branch_files(remote: Path) -> dict[str, bytes]:
    """Every file at the branch tip of a bare remote."""
    listing = git("ls-tree", "-r", "--name-only", BRANCH, cwd=remote).splitlines()
    found = {}
    for path in listing:
        proc = subprocess.run(
            ["git", "show", f"{BRANCH}:{path}"], cwd=remote, capture_output=True, check=True
        )
        found[path] = proc.stdout
    return found


def commit_count(remote: Path) -> int:
    """How many commits the branch has (0 when it does not exist)."""
    if not git("ls-remote", str(remote), f"refs/heads/{BRANCH}"):
        return 0
    return int(git("rev-list", "--count", BRANCH, cwd=remote))


def assert_derived_match_recompute(files: Mapping[str, bytes]) -> None:
    """The branch's derived files are exactly what a full recompute of its ledger gives."""
    parsed = parse_ledger({p: decode_shard(d) for p, d in files.items() if is_shard(p)})
    config = recorded_config(files)
    assert config is not None
    expected = derive_files(parsed, config)
    actual = {p: d for p, d in files.items() if is_derived(p)}
    assert sorted(actual) == sorted(expected)
    for path in expected:
        assert actual[path] == expected[path], path
