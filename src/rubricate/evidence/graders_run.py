"""Run the config's command graders (shell: starts processes).

Graders run PR code, so they run only when the caller says the context is trusted: local
`rubricate score`, or an unprivileged `pull_request` job. Otherwise each gets a `skip` result
saying why. Each grader runs through the shell in `cwd`, in its own process group (killed
whole on timeout), with the JSON payload on stdin and an environment from which variables
that look like secrets (`*TOKEN*`, `*SECRET*`, `*PASSWORD*`, `*API_KEY*`, ...) are removed.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rubricate.config import GraderCommand
from rubricate.evidence.graders import GraderRun, grader_result, skipped_graders
from rubricate.evidence.results import CheckResult

UNTRUSTED = "graders run PR code, so they run only in local mode or a trusted (unprivileged) job"
SECRET_NAMES = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_?KEY|CREDENTIAL", re.I)


def run_graders(
    graders: Sequence[GraderCommand],
    snapshot_payload: dict[str, Any],
    cwd: str | Path,
    *,
    trusted: bool,
) -> list[CheckResult]:
    """Run each grader and read its answer; only skip results when not trusted."""
    if not trusted:
        return skipped_graders(graders, UNTRUSTED)
    stdin = json.dumps(snapshot_payload).encode("utf-8")
    env = grader_env(os.environ)
    return [grader_result(g, _run_one(g, stdin, cwd, env)) for g in graders]


def grader_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment a grader sees: the caller's, without secrets, plus RUBRICATE_GRADER=1."""
    env = {k: v for k, v in environ.items() if not SECRET_NAMES.search(k)}
    env["RUBRICATE_GRADER"] = "1"
    return env


def _run_one(
    grader: GraderCommand, stdin: bytes, cwd: str | Path, env: dict[str, str]
) -> GraderRun:
    try:
        proc = subprocess.Popen(
            grader.run,
            shell=True,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        return GraderRun(error=str(exc))
    try:
        out, err = proc.communicate(stdin, timeout=grader.timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        proc.communicate()
        return GraderRun(timed_out=True)
    return GraderRun(_text(out), _text(err), proc.returncode)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")
