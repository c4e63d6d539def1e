"""The README fragments in docs/ and SECURITY.md: current, consistent and loadable."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
import yaml

from rubricate.config import load_config
from tests.action.docs_reference import (
    DOCS,
    SCHEMA,
    command_table,
    config_reference,
    replace_section,
    section,
)
from tests.action.workflow_files import (
    ACTION,
    ROOT,
    TEMPLATES,
    WORKFLOWS,
    assert_delivers_pull_request_actions,
    uses_lines,
)

SECURITY = ROOT / "SECURITY.md"
DOC_FILES = sorted(DOCS.glob("*.md"))
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCED_YAML = re.compile(r"```yaml\n(.*?)```", re.DOTALL)


def test_the_config_reference_is_generated_from_the_schema() -> None:
    if not SCHEMA.is_file():
        pytest.skip("schemas/config.schema.json is not there")
    text = (DOCS / "config.md").read_text(encoding="utf-8")
    expected = config_reference(json.loads(SCHEMA.read_text(encoding="utf-8")))
    assert section("config-reference", text) == expected, (
        "run python -m tests.action.docs_reference"
    )


def test_every_schema_key_is_in_the_reference() -> None:
    if not SCHEMA.is_file():
        pytest.skip("schemas/config.schema.json is not there")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    reference = config_reference(schema)
    for key in schema["properties"]:
        assert f"| `{key}` |" in reference


def test_the_command_table_is_generated_from_the_command_definitions() -> None:
    if importlib.util.find_spec("rubricate.bot.command_table") is None:
        pytest.skip("the command definitions are not there")
    text = (DOCS / "commands.md").read_text(encoding="utf-8")
    assert section("commands", text) == command_table(), "run python -m tests.action.docs_reference"


def test_sections_are_replaced_in_place() -> None:
    text = "a\n<!-- generated:x -->\nold\n<!-- end:x -->\nb\n"
    assert (
        replace_section("x", text, "new\n") == "a\n<!-- generated:x -->\nnew\n<!-- end:x -->\nb\n"
    )
    assert section("x", text) == "old\n"
    assert section("y", text) is None


def test_the_config_example_is_a_valid_config() -> None:
    text = (DOCS / "config.md").read_text(encoding="utf-8")
    example = FENCED_YAML.search(text)
    assert example is not None
    config = load_config(example.group(1), "docs/config.md")
    assert config.graders[0].criterion == "verifiability"


def test_every_yaml_block_in_the_docs_parses() -> None:
    for path in [*DOC_FILES, SECURITY]:
        for block in FENCED_YAML.findall(path.read_text(encoding="utf-8")):
            yaml.safe_load(block.replace("<40-character commit SHA>", "0" * 40))


def test_every_documented_workflow_delivers_the_pull_request_actions_the_bot_acts_on() -> None:
    """The workflows the docs show (the minimal one users copy first) subscribe to a retarget
    like the template does: without it a green given under another base's rules stays."""
    found = 0
    for path in [*DOC_FILES, SECURITY]:
        for block in FENCED_YAML.findall(path.read_text(encoding="utf-8")):
            workflow = yaml.safe_load(block.replace("<40-character commit SHA>", "0" * 40))
            if isinstance(workflow, dict) and True in workflow:
                workflow["on"] = workflow.pop(True)
            if isinstance(workflow, dict) and "pull_request_target" in workflow.get("on", {}):
                assert_delivers_pull_request_actions(workflow)
                found += 1
    assert found


@pytest.mark.parametrize("path", [*DOC_FILES, SECURITY], ids=lambda p: p.name)
def test_relative_links_point_at_files(path: Path) -> None:
    for target in LINK.findall(path.read_text(encoding="utf-8")):
        if "://" in target or target.startswith(("#", "../../")):
            continue
        assert (path.parent / target.split("#")[0]).exists(), f"{path.name}: {target}"


def test_the_pin_table_matches_the_pins_in_use() -> None:
    text = (DOCS / "workflows.md").read_text(encoding="utf-8")
    documented = dict(re.findall(r"`([0-9a-f]{40})` \((v[\d.]+)\)", text))
    used: dict[str, str] = {}
    for path in [ACTION, *TEMPLATES, *WORKFLOWS]:
        for line in uses_lines(path):
            found = re.search(r"@([0-9a-f]{40}) # (v[\d.]+)", line)
            if found:
                used[found.group(1)] = found.group(2)
    assert used
    assert used == documented


def test_security_md_covers_what_the_issue_asks() -> None:
    text = SECURITY.read_text(encoding="utf-8")
    for heading in (
        "## Reporting a vulnerability",
        "## Threat model",
        "## What runs with which token",
        "## Why PR code never runs in the privileged workflow",
        "## How authorization works",
    ):
        assert heading in text
    for threat in ("Forks", "Comment-triggered runs", "Prompt injection", "Rubric tampering"):
        assert f"**{threat}**" in text
