"""docs/action.md: its tables are action.yml's inputs and outputs and the templates'
permissions as they are, and its minimal workflow is a small, valid cut of the full template."""

from __future__ import annotations

import re
from typing import Any

import yaml

from tests.action.action_reference import DOC, ROOT, TEMPLATES, regenerate


def test_the_tables_match_action_yml_and_the_templates() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert text == regenerate(text), "run python -m tests.action.action_reference"
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    for name in [*action["inputs"], *action["outputs"]]:
        assert f"| `{name}` |" in text
    for output in ("verdict", "weighted-total", "normalized", "gate"):
        assert f"| `{output}` |" in text


def _minimal() -> tuple[str, dict[str, Any]]:
    block = re.search(r"```yaml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert block is not None
    return block[1], yaml.safe_load(block[1])


def test_the_minimal_workflow_is_short_and_asks_what_the_full_one_asks() -> None:
    text, minimal = _minimal()
    assert len(text.splitlines()) <= 40
    full = yaml.safe_load((TEMPLATES / "rubricate.yml").read_text(encoding="utf-8"))
    assert minimal["permissions"] == full["permissions"] == {}
    job, full_job = minimal["jobs"]["rubricate"], full["jobs"]["rubricate"]
    assert job["permissions"] == full_job["permissions"]
    assert job["steps"] == full_job["steps"]
    assert job["concurrency"]["cancel-in-progress"] is False
    triggers = minimal[True]  # YAML 1.1 reads the key `on` as true
    assert set(triggers) <= set(full[True])
    assert triggers["pull_request_target"] == full[True]["pull_request_target"]
