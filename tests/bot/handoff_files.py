"""Graders hand-off artifacts and `workflow_run` payloads for tests (test support only)."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Mapping, Sequence
from typing import Any

RUN_ID = 9_876_543_210
HEAD = "a" * 40
BASE = "b" * 40


def pull_json(pr: int = 7, head_sha: str = HEAD, base_sha: str = BASE) -> dict[str, Any]:
    """What action.yml's `command: graders` writes to pull.json."""
    return {"pr": pr, "base_sha": base_sha, "head_sha": head_sha}


def grader_check(
    grader: str,
    value: float | None,
    *,
    status: str = "pass",
    findings: Sequence[Mapping[str, Any]] = (),
    criterion: str = "spec_adherence",
) -> dict[str, Any]:
    """A check of report.json as `rubricate score --format json` writes it (criterion forged)."""
    return {
        "id": f"grader:{grader}",
        "status": status,
        "criterion": criterion,
        "value": value,
        "score": 5,
        "evidence": ["forged evidence line"],
        "findings": list(findings),
    }


def report_json(checks: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A report.json whose verdict and criteria claim a pass (ignored by the reader)."""
    return {
        "rubric": {"id": "agora-v3", "version": "3"},
        "verdict": "pass",
        "weighted_total": 5,
        "criteria": [{"id": "quality", "score": 5, "source": "auto"}],
        "checks": [{"id": "format", "status": "pass", "findings": []}, *checks],
    }


def artifact_zip(
    pull: Any | None = None,
    report: Any | None = None,
    *,
    extra: Mapping[str, bytes] | None = None,
    compression: int = zipfile.ZIP_DEFLATED,
) -> bytes:
    """The artifact's zip: pull.json, report.json and any extra entries."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        if pull is not None:
            archive.writestr("pull.json", _bytes(pull))
        if report is not None:
            archive.writestr("report.json", _bytes(report))
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _bytes(value: Any) -> bytes:
    return value if isinstance(value, bytes) else json.dumps(value).encode()


def workflow_run_payload(
    *,
    head_sha: str = HEAD,
    run_id: int = RUN_ID,
    repo: str = "acme/widgets",
    action: str = "completed",
    event: str = "pull_request",
    conclusion: str | None = "success",
    at: str = "2024-03-01T11:00:00Z",
    pulls: Sequence[int] = (),
) -> dict[str, Any]:
    """A `workflow_run` payload of the graders workflow (a fork's run lists no PRs)."""
    owner = {"login": repo.split("/")[0], "id": 5, "type": "Organization"}
    actor = {"login": "alice", "id": 3, "type": "User"}
    return {
        "action": action,
        "workflow_run": {
            "id": run_id,
            "name": "rubricate graders",
            "event": event,
            "status": "completed" if action == "completed" else "in_progress",
            "conclusion": conclusion,
            "head_branch": "feature",
            "head_sha": head_sha,
            "run_attempt": 1,
            "created_at": "2024-03-01T10:30:00Z",
            "updated_at": at,
            "actor": actor,
            "triggering_actor": actor,
            "pull_requests": [{"number": n} for n in pulls],
            "head_repository": {"full_name": "alice/widgets"},
            "repository": {"full_name": repo},
        },
        "workflow": {"name": "rubricate graders", "path": ".github/workflows/graders.yml"},
        "repository": {"id": 600, "full_name": repo, "name": repo.split("/")[1], "owner": owner},
        "sender": actor,
    }
