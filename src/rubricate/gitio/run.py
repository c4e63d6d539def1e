"""Run the git CLI with a clean, predictable environment (shell: does I/O)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

from rubricate.errors import GitError as GitError
from rubricate.errors import RubricateError

_NEUTRAL_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_CONFIG_NOSYSTEM": "1",
    "LC_ALL": "C",
}


def git_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The process environment with prompts off, a fixed locale, and `extra` on top."""
    env = dict(os.environ)
    env.update(_NEUTRAL_ENV)
    if extra:
        env.update(extra)
    return env


def run_git(
    args: Sequence[str],
    cwd: str | Path | None = None,
    *,
    env: Mapping[str, str] | None = None,
    input_bytes: bytes | None = None,
    check: bool = True,
    timeout: float | None = 600,
) -> subprocess.CompletedProcess[bytes]:
    """Run `git ARGS` and return the completed process; raise `GitError` when it fails."""
    try:
        proc = subprocess.run(
            ["git", *args],
            cwd=cwd,
            env=git_env(env),
            input=input_bytes,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError:
        raise RubricateError("git is not installed or not on PATH") from None
    except subprocess.TimeoutExpired:
        raise GitError(args, -1, f"timed out after {timeout}s") from None
    if check and proc.returncode != 0:
        raise GitError(args, proc.returncode, proc.stderr.decode("utf-8", "replace"))
    return proc


def start_git(
    args: Sequence[str],
    cwd: str | Path,
    *,
    env: Mapping[str, str] | None = None,
    stdout: int | IO[bytes] = subprocess.PIPE,
    stderr: int | IO[bytes] = subprocess.DEVNULL,
) -> subprocess.Popen[bytes]:
    """Start `git ARGS` reading from a pipe (for a long-lived or streamed process)."""
    try:
        return subprocess.Popen(
            ["git", *args],
            cwd=cwd,
            env=git_env(env),
            stdin=subprocess.PIPE,
            stdout=stdout,
            stderr=stderr,
        )
    except FileNotFoundError:
        raise RubricateError("git is not installed or not on PATH") from None


def git_text(args: Sequence[str], cwd: str | Path | None = None, **kwargs: object) -> str:
    """Run git and return its stdout as text, stripped of the final newline."""
    proc = run_git(args, cwd, **kwargs)  # type: ignore[arg-type]
    return proc.stdout.decode("utf-8", "replace").rstrip("\n")
