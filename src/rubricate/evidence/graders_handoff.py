"""The graders hand-off artifact, read as untrusted data (pure: zip bytes in, checked data out).

The unprivileged graders job runs the PR's code, so anything in its artifact may be forged:
- the zip is read in memory and never extracted: at most `max_members` entries and
  `max_total_bytes` uncompressed in all (declared sizes are checked first, and the bytes are
  counted again while reading); encrypted or duplicate entries refuse it; only `pull.json` and
  `report.json` at its root are read;
- `pull.json` gives the PR number and head SHA it claims: the caller verifies both;
- `report.json` gives only the `grader:<id>` checks: id, status, value in [0, 1], and findings
  (path, line, message, severity), every text cut short and stripped of control characters.
  Criteria, scores, verdicts, evidence lines and the rubric in it are ignored: the privileged
  run maps each value with its own rubric and config, read from the base branch.
"""

from __future__ import annotations

import io
import json
import math
import re
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rubricate.errors import HandoffRefused
from rubricate.evidence.graders import SEVERITIES
from rubricate.evidence.results import CheckResult, CheckStatus, Finding

ARTIFACT_NAME = "rubricate-graders"
PULL_FILE, REPORT_FILE = "pull.json", "report.json"
MIB = 1024 * 1024
MAX_PULL_BYTES = 4096
MAX_CHECKS = 32
MAX_FINDINGS = 50
MAX_TEXT = 300
MAX_LINE = 10_000_000
GRADER_CHECK = re.compile(r"grader:[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_STATUSES: dict[str, CheckStatus] = {
    "pass": "pass",
    "fail": "fail",
    "warn": "warn",
    "skip": "skip",
    "error": "error",
}
_ZIP_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    NotImplementedError,
    RuntimeError,
    EOFError,
    OSError,
    ValueError,
    zlib.error,
)


@dataclass(frozen=True)
class HandoffLimits:
    """How much of an artifact is read at most."""

    max_zip_bytes: int = 5 * MIB
    max_total_bytes: int = 5 * MIB
    max_members: int = 16


@dataclass(frozen=True)
class Handoff:
    """What the artifact claims: the PR and head, and the grader checks (all untrusted)."""

    pr: int
    head_sha: str
    checks: tuple[CheckResult, ...]
    dropped: tuple[str, ...] = ()


def read_handoff(data: bytes, limits: HandoffLimits | None = None) -> Handoff:
    """Read `pull.json` and `report.json` from the artifact's zip; `HandoffRefused` if unfit."""
    limits = limits or HandoffLimits()
    if len(data) > limits.max_zip_bytes:
        raise HandoffRefused(f"the artifact is {len(data)} bytes, over {limits.max_zip_bytes}")
    files = _unzip(data, limits)
    pr, head_sha = _pull(_json(files, PULL_FILE, MAX_PULL_BYTES))
    checks, dropped = _checks(_json(files, REPORT_FILE, limits.max_total_bytes))
    return Handoff(pr, head_sha, checks, dropped)


def _unzip(data: bytes, limits: HandoffLimits) -> dict[str, bytes]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return _members(archive, limits)
    except _ZIP_ERRORS as exc:
        raise HandoffRefused(f"the artifact is not a readable zip: {exc}") from None


def _members(archive: zipfile.ZipFile, limits: HandoffLimits) -> dict[str, bytes]:
    infos = archive.infolist()
    if len(infos) > limits.max_members:
        raise HandoffRefused(f"the artifact has {len(infos)} entries, over {limits.max_members}")
    declared = sum(info.file_size for info in infos)
    if declared > limits.max_total_bytes:
        raise HandoffRefused(
            f"the artifact unpacks to {declared} bytes, over {limits.max_total_bytes}"
        )
    names = [info.filename for info in infos]
    wanted = [info for info in infos if info.filename in (PULL_FILE, REPORT_FILE)]
    if len(set(names)) != len(names):
        raise HandoffRefused("the artifact has duplicate entries")
    if any(info.flag_bits & 0x1 for info in wanted):
        raise HandoffRefused("the artifact has encrypted entries")
    budget = limits.max_total_bytes
    files: dict[str, bytes] = {}
    for info in wanted:
        with archive.open(info) as member:
            content = member.read(min(info.file_size, budget) + 1)
        if len(content) > min(info.file_size, budget):
            raise HandoffRefused(f"{info.filename} unpacks to more than its declared size")
        budget -= len(content)
        files[info.filename] = content
    return files


def _json(files: Mapping[str, bytes], name: str, limit: int) -> Any:
    content = files.get(name)
    if content is None:
        raise HandoffRefused(f"the artifact has no {name}")
    if len(content) > limit:
        raise HandoffRefused(f"{name} is {len(content)} bytes, over {limit}")
    try:
        return json.loads(content.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise HandoffRefused(f"{name} is not JSON: {str(exc)[:200]}") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


def _pull(data: Any) -> tuple[int, str]:
    if not isinstance(data, dict):
        raise HandoffRefused(f"{PULL_FILE} is not an object")
    pr, head_sha = data.get("pr"), data.get("head_sha")
    if isinstance(pr, bool) or not isinstance(pr, int) or not 0 < pr < 2**31:
        raise HandoffRefused(f"{PULL_FILE}: `pr` is not a PR number")
    if not isinstance(head_sha, str) or not _SHA.fullmatch(head_sha):
        raise HandoffRefused(f"{PULL_FILE}: `head_sha` is not a commit SHA")
    return pr, head_sha


def _checks(data: Any) -> tuple[tuple[CheckResult, ...], tuple[str, ...]]:
    raw = data.get("checks") if isinstance(data, dict) else None
    if not isinstance(raw, list):
        raise HandoffRefused(f"{REPORT_FILE} has no list of checks")
    found: dict[str, CheckResult] = {}
    dropped: list[str] = []
    for item in raw:
        cid = item.get("id") if isinstance(item, dict) else None
        if not isinstance(cid, str) or not GRADER_CHECK.fullmatch(cid) or cid in found:
            continue
        if len(found) == MAX_CHECKS:
            dropped.append(f"more than {MAX_CHECKS} grader checks: the rest are left out")
            break
        check = _check(cid, item)
        if isinstance(check, str):
            dropped.append(f"{cid}: {check}")
        else:
            found[cid] = check
    return tuple(found.values()), tuple(dropped)


def _check(cid: str, item: Mapping[str, Any]) -> CheckResult | str:
    status = _STATUSES.get(str(item.get("status")))
    if status is None:
        return "its status is not one a grader reports"
    value = item.get("value")
    if value is not None and not _fraction(value):
        return "its value is not a number in [0, 1]"
    findings = item.get("findings", [])
    if not isinstance(findings, list):
        return "its findings are not a list"
    parsed = [_finding(cid, f) for f in findings[:MAX_FINDINGS]]
    kept = tuple(f for f in parsed if f is not None)
    number = None if value is None or status == "skip" else float(value)
    return CheckResult(cid, status, kept, value=number)


def _fraction(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return math.isfinite(value) and 0.0 <= value <= 1.0


def _finding(cid: str, item: Any) -> Finding | None:
    if not isinstance(item, dict) or not isinstance(item.get("message"), str):
        return None
    return Finding(
        check=cid,
        message=clean_text(item["message"]) or "(no message)",
        path=_path(item.get("path")),
        line=_line(item.get("line")),
        severity=SEVERITIES.get(str(item.get("severity")), "warning"),
    )


def clean_text(text: str, limit: int = MAX_TEXT) -> str:
    """One line without control or direction characters, cut to `limit` characters."""
    flat = " ".join(_UNSAFE.sub(" ", text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _path(value: Any) -> str | None:
    """A repository-relative path, or None when it could point anywhere else."""
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        return None
    if _UNSAFE.search(value) or "\\" in value:
        return None
    parts = value.split("/")
    return None if any(part in ("", ".", "..") for part in parts) else value


def _line(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 0 < value <= MAX_LINE else None
