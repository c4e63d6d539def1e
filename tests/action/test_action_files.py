"""action.yml, the workflow templates and this repository's workflows: shape and safety."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.action.workflow_files import (
    ACTION,
    EXPRESSION,
    FIXTURE,
    ROOT,
    SHA_PIN,
    TEMPLATES,
    VERSION_COMMENT,
    WORKFLOWS,
    assert_delivers_pull_request_actions,
    load,
    steps_of,
    tool,
)

ALL_FILES = [ACTION, *TEMPLATES, *WORKFLOWS]
REQUIRED_INPUTS = {
    "github-token": "${{ github.token }}",
    "config": ".github/rubricate.yml",
    "rubric": "",
    "data-branch": "",
    "openai-api-key": "",
    "openai-base-url": "",
    "model": "",
    "judge-cache-dir": "",
    "dry-run": "false",
}
TAINTED = re.compile(r"^(github\.event\.|inputs\.)")
ids = pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: str(p.relative_to(ROOT)))


def test_the_templates_and_workflows_exist() -> None:
    assert {p.name for p in TEMPLATES} >= {"rubricate.yml", "graders.yml", "catch-up.yml"}
    assert {p.name for p in WORKFLOWS} >= {"ci.yml", "self-test.yml"}


def test_action_inputs_are_kebab_case_with_descriptions_and_defaults() -> None:
    inputs = load(ACTION)["inputs"]
    for name, spec in inputs.items():
        assert re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", name), name
        assert spec.get("description"), f"input {name} has no description"
        assert "default" in spec, f"input {name} has no default"
    assert {name: inputs[name]["default"] for name in REQUIRED_INPUTS} == REQUIRED_INPUTS


def test_action_outputs_come_from_the_run_step() -> None:
    outputs = load(ACTION)["outputs"]
    assert set(outputs) == {"verdict", "weighted-total", "normalized", "gate"}
    for name, spec in outputs.items():
        assert spec["description"]
        assert spec["value"] == f"${{{{ steps.run.outputs.{name} }}}}"


def test_every_input_reaches_the_program_through_env() -> None:
    run_step = next(s for s in steps_of(ACTION) if s.get("id") == "run")
    env = run_step["env"]
    for name in REQUIRED_INPUTS:
        assert env[f"INPUT_{name.upper()}"] == f"${{{{ inputs.{name} }}}}"


def test_the_action_is_composite_and_masks_secrets() -> None:
    data = load(ACTION)
    assert data["runs"]["using"] == "composite"
    prepare = next(s for s in steps_of(ACTION) if s.get("id") == "prepare")
    assert "::add-mask::" in prepare["run"]
    assert set(prepare["env"].values()) >= {
        "${{ inputs.github-token }}",
        "${{ inputs.openai-api-key }}",
    }
    scripts = [s["run"] for s in steps_of(ACTION) if "run" in s]
    assert all("::group::" in s for s in scripts if "install" in s or "prepare" in s)


@ids
def test_no_run_script_interpolates_event_text_or_inputs(path: Path) -> None:
    for step in steps_of(path):
        script = step.get("run", "")
        tainted = [e for e in EXPRESSION.findall(script) if TAINTED.match(e)]
        assert not tainted, f"{path.name}: step {step.get('name')!r} pastes {tainted} into run:"


def test_the_action_pastes_no_expression_at_all_into_its_scripts() -> None:
    for step in steps_of(ACTION):
        assert not EXPRESSION.findall(step.get("run", "")), step.get("name")


@ids
def test_actions_are_pinned_to_a_commit_sha_with_the_version(path: Path) -> None:
    for step in steps_of(path):
        uses = step.get("uses")
        if uses is None or uses == "./":
            continue
        if "/rubricate@" in uses:  # a placeholder no commit can match: it never resolves unedited
            assert uses == "OWNER/rubricate@" + "0" * 40, uses
        assert SHA_PIN.match(uses), f"{path.name}: {uses} is not pinned to a full commit SHA"
    for line in path.read_text(encoding="utf-8").splitlines():
        if "uses:" in line and SHA_PIN.search(line.split("uses:")[1].split("#")[0].strip()):
            assert VERSION_COMMENT.search(line), f"{path.name}: no version comment in {line!r}"


def _on(path: Path) -> dict[str, object]:
    return load(path)["on"]


def test_the_recommended_template_triggers_and_permissions() -> None:
    path = next(p for p in TEMPLATES if p.name == "rubricate.yml")
    data = load(path)
    on = data["on"]
    assert on["pull_request_target"]["types"] == [
        "opened",
        "reopened",
        "ready_for_review",
        "synchronize",
        "closed",
        "edited",
    ]
    assert on["issue_comment"]["types"] == ["created"]
    assert on["pull_request_review"]["types"] == ["submitted", "dismissed"]
    assert data["permissions"] == {}
    job = data["jobs"]["rubricate"]
    assert job["permissions"] == {
        "contents": "write",
        "pull-requests": "write",
        "issues": "write",
        "checks": "write",
        "statuses": "write",
    }
    assert job["concurrency"]["cancel-in-progress"] is False
    group = job["concurrency"]["group"]
    assert "pull_request.number" in group
    assert "issue.number" in group
    assert "format('-closed-{0}', github.run_id)" in group, "a closing event needs its own group"


def test_no_privileged_template_checks_out_pr_code() -> None:
    for path in TEMPLATES:
        if "pull_request_target" in _on(path) or "issue_comment" in _on(path):
            uses = [s.get("uses", "") for s in steps_of(path)]
            assert not any(u.startswith("actions/checkout") for u in uses), path.name


def test_the_graders_template_is_unprivileged() -> None:
    path = next(p for p in TEMPLATES if p.name == "graders.yml")
    data = load(path)
    assert set(data["on"]) == {"pull_request"}
    assert data["permissions"] == {}
    [job] = data["jobs"].values()
    assert job["permissions"] == {"contents": "read"}
    assert "secrets." not in path.read_text(encoding="utf-8")
    steps = list(steps_of(path))
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["persist-credentials"] is False
    assert any(s.get("uses", "").startswith("actions/upload-artifact@") for s in steps)
    assert any(s.get("with", {}).get("command") == "graders" for s in steps)


def test_the_catch_up_template_is_scheduled() -> None:
    path = next(p for p in TEMPLATES if p.name == "catch-up.yml")
    data = load(path)
    assert data["on"]["schedule"]
    [job] = data["jobs"].values()
    assert job["permissions"]["contents"] == "write"
    assert data["concurrency"]["cancel-in-progress"] is False
    assert any(s.get("with", {}).get("command") == "catch-up" for s in steps_of(path))


def test_ci_runs_the_ci_script_on_every_supported_python() -> None:
    data = load(next(p for p in WORKFLOWS if p.name == "ci.yml"))
    [job] = data["jobs"].values()
    assert job["strategy"]["matrix"]["python"] == ["3.10", "3.11", "3.12", "3.13"]
    assert any("bash .ci/run" in s.get("run", "") for s in job["steps"])
    assert data["permissions"] == {"contents": "read"}


def test_the_self_test_runs_the_local_action_dry_on_the_bundled_event() -> None:
    data = load(next(p for p in WORKFLOWS if p.name == "self-test.yml"))
    [job] = data["jobs"].values()
    step = next(s for s in job["steps"] if s.get("uses") == "./")
    assert step["with"]["dry-run"] == "true"
    assert (ROOT / step["with"]["event-path"]).resolve() == FIXTURE
    assert step["with"]["event-name"] == "pull_request_target"


def test_the_bundled_event_is_a_pull_request_the_bot_handles() -> None:
    payload = json.loads(FIXTURE.read_text(encoding="utf-8"))
    payload_module = pytest.importorskip("rubricate.bot.payload")
    event = payload_module.parse_event("pull_request_target", payload)
    assert type(event).__name__ == "PullRequestEvent"
    assert (event.action, event.number) == ("opened", payload["number"])


def _run_tool(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, check=False)


def test_zizmor_finds_nothing_of_medium_or_higher_severity() -> None:
    zizmor = tool("zizmor")
    if zizmor is None:
        pytest.skip("zizmor is not installed")
    files = [str(p.relative_to(ROOT)) for p in ALL_FILES]
    config = [zizmor, "--offline", "--config", ".ci/zizmor.yml", "--format", "json"]
    proc = _run_tool([*config, "--min-severity", "medium", *files])
    findings = json.loads(proc.stdout or "[]")
    summary = [(f["ident"], f["determinations"]["severity"]) for f in findings]
    assert not findings, summary
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize(
    ("schema", "paths"),
    [("vendor.github-actions", [ACTION]), ("vendor.github-workflows", [*TEMPLATES, *WORKFLOWS])],
)
def test_github_schemas_accept_the_files(schema: str, paths: list[Path]) -> None:
    checker = tool("check-jsonschema")
    if checker is None:
        pytest.skip("check-jsonschema is not installed")
    proc = _run_tool([checker, "--builtin-schema", schema, *map(str, paths)])
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_lint_script_is_executable() -> None:
    script = ROOT / ".ci" / "lint-actions"
    assert script.stat().st_mode & 0o111
    text = script.read_text(encoding="utf-8")
    assert "zizmor --offline --min-severity medium" in text
    assert "vendor.github-workflows" in text
    assert "vendor.github-actions" in text


def test_the_pre_commit_hook_runs_rubricate_validate() -> None:
    [hook] = load_list(ROOT / ".pre-commit-hooks.yaml")
    assert hook["id"] == "rubricate-validate"
    assert hook["entry"] == "rubricate validate"
    assert hook["language"] == "python"
    pattern = re.compile(hook["files"])
    assert pattern.search("rubrics/agora-v3.yml")
    assert pattern.search(".github/rubricate.yml")
    assert not pattern.search("src/rubricate/config.py")


def load_list(path: Path) -> list[dict[str, object]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, list)
    return data


def test_the_template_delivers_every_pull_request_action_the_bot_acts_on() -> None:
    """A retarget (`edited` with a change of base) is what turns a PR approved on a lenient base
    into a new version under main's rules: a template that does not subscribe to it leaves the
    old green on the head. A title or body edit starts no job."""
    path = next(p for p in TEMPLATES if p.name == "rubricate.yml")
    assert_delivers_pull_request_actions(load(path))
