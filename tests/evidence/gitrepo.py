"""Build small real git repositories for the evidence tests: a base commit and a head commit."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rubricate.config import Config, load_config
from rubricate.evidence.deliverable_schemas import schema_paths
from rubricate.evidence.snapshot import Snapshot
from rubricate.gitio.read import read_snapshot

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.org",
    "GIT_COMMITTER_NAME": "Test Author",
    "GIT_COMMITTER_EMAIL": "author@example.org",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


@dataclass(frozen=True)
class Link:
    """A symlink to `target`, as a file value."""

    target: str


FileValue = str | bytes | Link | None
"""Text, bytes, a symlink, or None to delete the path."""


def git(repo: Path, *args: str, stdin: bytes | None = None) -> str:
    """Run git in `repo` with a fixed identity and no user config; return stdout."""
    env = {**os.environ, **GIT_ENV}
    proc = subprocess.run(
        ["git", *args], cwd=repo, env=env, input=stdin, capture_output=True, check=True
    )
    return proc.stdout.decode().strip()


def init_repo(root: Path, branch: str = "main") -> Path:
    """An empty repository whose first branch is `branch`."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q")
    git(root, "symbolic-ref", "HEAD", f"refs/heads/{branch}")
    return root


def write_files(repo: Path, files: Mapping[str, FileValue]) -> None:
    """Write, link or delete each path in the work tree."""
    for path, value in files.items():
        target = repo / path
        if target.is_symlink() or target.exists():
            target.unlink()
        if value is None:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(value, Link):
            target.symlink_to(value.target)
        elif isinstance(value, bytes):
            target.write_bytes(value)
        else:
            target.write_bytes(value.encode("utf-8"))


def commit(repo: Path, files: Mapping[str, FileValue], message: str = "change") -> str:
    """Apply the files and commit everything; return the commit SHA."""
    write_files(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD")


@dataclass(frozen=True)
class Change:
    """A repository with a base commit on main and a head commit on a branch."""

    repo: Path
    base: str
    head: str


def make_change(
    root: Path,
    base: Mapping[str, FileValue],
    head: Mapping[str, FileValue],
    *,
    message: str = "Make the change",
) -> Change:
    """Commit `base` on main, then `head` on top of it on the branch `topic`."""
    repo = init_repo(root / "repo")
    base_sha = commit(repo, base, "Base")
    git(repo, "checkout", "-q", "-b", "topic")
    head_sha = commit(repo, head, message)
    return Change(repo, base_sha, head_sha)


def snapshot_of(
    root: Path,
    base: Mapping[str, FileValue],
    head: Mapping[str, FileValue],
    *,
    config: Config | None = None,
    spec: str = "",
    body: str = "",
) -> Snapshot:
    """Build the repository and read its change as the CLI does (schemas from the base)."""
    change = make_change(root, base, head)
    wanted = schema_paths(config) if config else ()
    return read_snapshot(
        change.repo, change.base, change.head, spec=spec, body=body, base_files_wanted=wanted
    )


def config_of(text: str) -> Config:
    """A config from YAML text."""
    return load_config(text)
