"""Helpers shared by the action tests: the files under test, parsed (test support only)."""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

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
