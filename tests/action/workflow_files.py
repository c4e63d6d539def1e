"""Helpers shared by the action tests: the files under test, parsed (test support only)."""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from rubricate.bot.payload import PR_ACTIONS, REVIEW_ACTIONS

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
TEMPLATES = sorted((ROOT / "examples" / "workflows").glob("*.yml"))
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
FIXTURE = ROOT / "tests" / "action" / "fixtures" / "pull_request.opened.json"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}", re.DOTALL)
SHA_PIN = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
VERSION_COMMENT = re.compile(r"#\s*v\d+\.\d+\.\d+\b")


def load(path: Path) -> dict[str, Any]:
    """A YAML file as a mapping (`on:` stays `on`, not True)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{path} is not a mapping"
    if True in data:
        data["on"] = data.pop(True)
    return data


def steps_of(path: Path) -> Iterator[dict[str, Any]]:
    """Every step of an action or a workflow."""
    data = load(path)
    if "runs" in data:
        yield from data["runs"].get("steps", [])
        return
    for job in data.get("jobs", {}).values():
        yield from job.get("steps", [])


def uses_lines(path: Path) -> list[str]:
    """Every `uses:` line of a file, with its trailing comment."""
    return [
        line.strip() for line in path.read_text(encoding="utf-8").splitlines() if "uses:" in line
    ]


def tool(name: str) -> str | None:
    """An executable beside this interpreter, else on PATH."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else shutil.which(name)


_PROPERTY = re.compile(r"\bgithub(?:\.[A-Za-z_][A-Za-z0-9_-]*)+")
_OBJECT = object()
_OPERATORS = (("&&", " and "), ("||", " or "), ("!=", " __ne__ "), ("!", " not "))


def job_runs(condition: str, event_name: str, payload: dict[str, Any]) -> bool:
    """Whether a job's `if:` admits an event, for the expressions our templates use: `github.`
    properties (a missing one is null), string literals, `==`, `!=`, `!`, `&&`, `||`,
    parentheses and `contains(text, part)` (test support: our own template's text only)."""
    context = {"event_name": event_name, "event": payload, "repository": "octo/widgets"}

    def read(path: str) -> Any:
        found: Any = context
        for name in path.split(".")[1:]:
            found = found.get(name) if isinstance(found, dict) else None
        return _OBJECT if isinstance(found, dict | list) else found  # truthy, even when empty

    names: dict[str, Any] = {}

    def value(match: re.Match[str]) -> str:
        key = f"_v{len(names)}"
        names[key] = read(match.group(0))
        return key

    text = _PROPERTY.sub(value, condition)
    for operator, word in _OPERATORS:
        text = text.replace(operator, word)
    text = text.replace(" __ne__ ", " != ").replace("\n", " ")
    names["contains"] = lambda text, part: part in (text or "")
    return bool(eval(text, {"__builtins__": {}}, names))


def assert_delivers_pull_request_actions(workflow: dict[str, Any]) -> None:
    """A workflow that runs rubricate on `pull_request_target` subscribes to every action the bot
    acts on, and its job's `if:` admits a retarget but skips an edit of the title or body. One
    that reads commands from reviews subscribes to their dismissal too, and runs it whatever the
    dismissed review's body says now (an edit may have taken its command out)."""
    assert set(PR_ACTIONS) <= set(workflow["on"]["pull_request_target"]["types"])
    (job,) = [j for j in workflow["jobs"].values() if "pull_request_target" in j.get("if", "")]
    base = {"action": "edited", "pull_request": {"number": 7}}
    retarget = {**base, "changes": {"base": {"ref": {"from": "release-1"}}}}
    assert job_runs(job["if"], "pull_request_target", retarget)
    assert not job_runs(job["if"], "pull_request_target", {**base, "changes": {"title": {}}})
    for action in ("opened", "synchronize", "closed"):
        assert job_runs(job["if"], "pull_request_target", {"action": action})
    comment = {"issue": {"pull_request": {}}, "comment": {"body": "/approve", "user": {}}}
    assert job_runs(job["if"], "issue_comment", comment)
    assert not job_runs(job["if"], "issue_comment", {**comment, "comment": {"body": "LGTM"}})
    if "pull_request_review" not in workflow["on"]:
        return
    assert set(REVIEW_ACTIONS) <= set(workflow["on"]["pull_request_review"]["types"])
    own = {"head": {"repo": {"full_name": "octo/widgets"}}}
    review = {"review": {"body": "/approve", "user": {}}, "pull_request": own}
    assert job_runs(job["if"], "pull_request_review", {**review, "action": "submitted"})
    dismissed = {**review, "action": "dismissed", "review": {"body": "LGTM", "user": {}}}
    assert job_runs(job["if"], "pull_request_review", dismissed)
