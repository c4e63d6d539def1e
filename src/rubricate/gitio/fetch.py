"""Fetch a PR's base and head commits into a private bare repository (shell: runs git).

The content is read, never checked out or executed. The token travels in an `http.extraheader`
scoped to the remote's origin and passed through the environment, so it never lands in a URL,
a log line or `.git/config`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from rubricate.errors import RubricateError
from rubricate.gitio import workspace
from rubricate.gitio.run import GitError, git_text, run_git
from rubricate.gitnames import ref_error, sha_error

DEEPEN_STEPS = (1, 16, 256)


def auth_env(remote: str, token: str | None) -> dict[str, str]:
    """Environment that authenticates git over HTTPS to `remote`'s host with the token, if any."""
    return workspace.auth_env(workspace.remote_url(remote), token, os.environ)


def fetch_commits(
    remote: str, base_sha: str, head_sha: str, dest: Path, *, token: str | None
) -> str:
    """Fetch both commits into a bare repo at `dest`; return their merge base (else the base)."""
    _check(sha_error(base_sha, "base SHA"), sha_error(head_sha, "head SHA"))
    env = auth_env(remote, token)
    remote = workspace.remote_url(remote)
    if not (dest / "HEAD").exists():
        run_git(["init", "--bare", "--quiet", str(dest)], env=env)
    for depth in DEEPEN_STEPS:
        _fetch(dest, remote, [base_sha, head_sha], env, ["--depth", str(depth)])
        found = merge_base(dest, base_sha, head_sha)
        if found:
            return found
    _fetch(dest, remote, [base_sha, head_sha], env, ["--unshallow"])
    return merge_base(dest, base_sha, head_sha) or base_sha


def fetch_branch(remote: str, branch: str, dest: Path, *, token: str | None) -> str:
    """Fetch the tip of `branch` (depth 1) into the bare repo at `dest`; return its commit."""
    _check(ref_error(branch, "branch"))
    env = auth_env(remote, token)
    remote = workspace.remote_url(remote)
    if not (dest / "HEAD").exists():
        run_git(["init", "--bare", "--quiet", str(dest)], env=env)
    ref = f"refs/rubricate/branches/{branch}"
    _fetch(dest, remote, [f"+refs/heads/{branch}:{ref}"], env, ["--depth", "1"])
    return git_text(["rev-parse", "--verify", "--end-of-options", f"{ref}^{{commit}}"], dest)


def merge_base(repo: Path, left: str, right: str) -> str | None:
    """The best common ancestor of two commits present in `repo`, or None."""
    _check(sha_error(left, "commit"), sha_error(right, "commit"))
    proc = run_git(["merge-base", "--end-of-options", left, right], repo, check=False)
    if proc.returncode != 0:
        return None
    return proc.stdout.decode().strip() or None


def tree_of(repo: Path, commit: str) -> str:
    """The tree SHA of a commit present in `repo`."""
    _check(sha_error(commit, "commit"))
    return git_text(["rev-parse", "--verify", "--end-of-options", f"{commit}^{{tree}}"], repo)


def _fetch(
    repo: Path, remote: str, shas: Sequence[str], env: dict[str, str], extra: list[str]
) -> None:
    args = [
        "fetch",
        "--quiet",
        "--no-tags",
        "--no-write-fetch-head",
        *extra,
        "--end-of-options",
        remote,
        *shas,
    ]
    try:
        run_git(args, repo, env=env)
    except GitError as exc:
        if "--unshallow" in extra and "unshallow on a complete repository" in exc.stderr:
            return
        raise


def _check(*problems: str | None) -> None:
    """Refuse a SHA or ref that git could read as an option, before it reaches argv."""
    for problem in problems:
        if problem:
            raise RubricateError(problem)
