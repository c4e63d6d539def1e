"""Command graders as data: the payload they read and how their answer is read (pure).

A grader reads one JSON payload on stdin (`grader_payload`) and answers in one of two ways:
- a JSON object on stdout (the whole output, or its last line):
  `{"score": 0.8, "findings": ["text", {"path": "a.py", "line": 3, "message": "..."}]}`;
  `score` is a number in [0, 1], a boolean, or a number on `min`..`max` given beside it;
- or only its exit code: 0 scores 1.0, anything else 0.0 with the output's tail as a finding.
A timeout, a crash (killed by a signal, exit 126/127: not runnable) or an answer that is not
valid is an `error` result with value 0.0 and a finding: never a pass.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rubricate.config import GraderCommand
from rubricate.evidence.results import CheckResult, CheckStatus, Finding, Severity
from rubricate.evidence.snapshot import Snapshot
from rubricate.rubric.model import Rubric

PASS_AT = 0.7
TAIL_LINES = 8
TAIL_CHARS = 800
MAX_FINDINGS = 50
SEVERITIES: dict[str, Severity] = {"error": "error", "warning": "warning", "info": "info"}


@dataclass(frozen=True)
class GraderRun:
    """What happened when a grader ran."""

    stdout: str = ""
    stderr: str = ""
    returncode: int | None = None
    timed_out: bool = False
    error: str | None = None


def check_id(grader: GraderCommand) -> str:
    """The check id of a grader's result."""
    return f"grader:{grader.id}"


def grader_payload(snapshot: Snapshot, rubric: Rubric) -> dict[str, Any]:
    """The JSON document a grader reads on stdin."""
    return {
        "base": snapshot.base_sha,
        "head": snapshot.head_sha,
        "title": snapshot.title,
        "body": snapshot.body,
        "spec": snapshot.spec,
        "rubric": {**rubric.ref, "criteria": list(rubric.ids)},
        "changes": [
            {
                "path": c.path,
                "status": c.status,
                "old_path": c.old_path,
                "additions": c.additions,
                "deletions": c.deletions,
                "binary": c.binary,
            }
            for c in snapshot.changes
        ],
    }


def skipped_graders(graders: Sequence[GraderCommand], reason: str) -> list[CheckResult]:
    """A `skip` result for each grader, saying why it did not run."""
    return [
        CheckResult(
            check_id(g),
            "skip",
            (Finding(check_id(g), f"not run: {reason}", severity="info"),),
            g.criterion,
            evidence=(f"`{g.run}` not run",),
        )
        for g in graders
    ]


def grader_result(grader: GraderCommand, run: GraderRun) -> CheckResult:
    """Read a grader's answer into a check result (value in [0, 1] for its criterion)."""
    cid = check_id(grader)
    failure = _failure(grader, run)
    if failure is not None:
        return _error(grader, failure)
    answer = _json_answer(run.stdout)
    if answer is None:
        return _by_exit_code(grader, run)
    try:
        value = _answer_value(answer)
        findings = _answer_findings(cid, answer.get("findings", []))
    except ValueError as exc:
        return _error(grader, f"invalid answer: {exc}")
    errors = any(f.severity == "error" for f in findings)
    status: CheckStatus = "pass" if value >= PASS_AT and not errors else "fail"
    evidence = (f"`{grader.run}` scored {value:.2f}",)
    return CheckResult(cid, status, tuple(findings), grader.criterion, None, evidence, value)


def _failure(grader: GraderCommand, run: GraderRun) -> str | None:
    if run.error is not None:
        return f"could not run: {run.error}"
    if run.timed_out:
        return f"timed out after {grader.timeout:g}s"
    code = run.returncode
    if code is None or code < 0 or code >= 126:
        return f"crashed (exit status {code})" + _tail(run)
    return None


def _error(grader: GraderCommand, message: str) -> CheckResult:
    finding = Finding(check_id(grader), message, severity="error")
    evidence = (f"`{grader.run}`: {message.splitlines()[0]}",)
    return CheckResult(check_id(grader), "error", (finding,), grader.criterion, None, evidence, 0.0)


def _by_exit_code(grader: GraderCommand, run: GraderRun) -> CheckResult:
    cid = check_id(grader)
    if run.returncode == 0:
        return CheckResult(
            cid, "pass", (), grader.criterion, None, (f"`{grader.run}` exited 0",), 1.0
        )
    finding = Finding(cid, f"exit code {run.returncode}" + _tail(run), severity="error")
    evidence = (f"`{grader.run}` exited {run.returncode}",)
    return CheckResult(cid, "fail", (finding,), grader.criterion, None, evidence, 0.0)


def _tail(run: GraderRun) -> str:
    text = "\n".join(part for part in (run.stdout.strip(), run.stderr.strip()) if part)
    lines = text.splitlines()[-TAIL_LINES:]
    tail = "\n".join(lines)[-TAIL_CHARS:]
    return f": {tail}" if tail else ""


def _json_answer(stdout: str) -> dict[str, Any] | None:
    text = stdout.strip()
    json_lines = [line for line in reversed(text.splitlines()) if line.lstrip().startswith("{")]
    candidates = [text, *json_lines[:1]]
    for candidate in candidates:
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(data, dict) and "score" in data:
            return data
    return None


def _answer_value(answer: dict[str, Any]) -> float:
    score = answer["score"]
    if isinstance(score, bool):
        return 1.0 if score else 0.0
    value = _finite(score)
    if value is None:
        raise ValueError(f"score must be a number or a boolean, not {score!r}"[:200])
    raw_low, raw_high = answer.get("min", 0), answer.get("max", 1)
    low, high = _finite(raw_low), _finite(raw_high)
    if low is None or high is None or high <= low:
        raise ValueError("min and max must be numbers with min < max")
    if not low <= value <= high:
        raise ValueError(f"score {score} is outside {raw_low}..{raw_high}")
    return (value - low) / (high - low)


def _finite(value: Any) -> float | None:
    """A JSON number as a finite float; None for anything else (booleans, NaN, overflow)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _answer_findings(cid: str, raw: Any) -> list[Finding]:
    if not isinstance(raw, list):
        raise ValueError("findings must be a list")
    return [_one_finding(cid, item) for item in raw[:MAX_FINDINGS]]


def _one_finding(cid: str, item: Any) -> Finding:
    if isinstance(item, str):
        return Finding(cid, item)
    if not isinstance(item, dict) or not isinstance(item.get("message"), str):
        raise ValueError("each finding must be a string or an object with a message")
    line = item.get("line")
    severity = SEVERITIES.get(str(item.get("severity")), "warning")
    path = item.get("path")
    return Finding(
        cid,
        item["message"],
        path if isinstance(path, str) else None,
        line if isinstance(line, int) and not isinstance(line, bool) else None,
        severity,
    )
