"""`rubricate init`: detection, the starter config, and never overwriting without --force."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from rubricate.cli.init_cmd import Deliverable, detect, render_config
from rubricate.cli.main import main
from rubricate.cli.rubric_cmd import validate_path

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _a_git_repository(tmp_path: Path) -> None:
    """init sets up a git repository: each test's folder is one."""
    subprocess.run(["git", "init", "--quiet", str(tmp_path)], check=True)


def _layout(root: Path) -> None:
    for path, text in {
        "schemas/result.schema.json": '{"type": "object"}',
        "schemas/orphan.schema.json": '{"type": "object"}',
        "out/result.json": "{}",
        "pyproject.toml": "[project]\nname = 'x'\n",
    }.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")


def test_detects_schema_siblings_and_test_commands() -> None:
    found = detect(["schemas/a.schema.json", "out/a.json", "schemas/b.schema.json", "go.mod"])
    assert found.deliverables == (Deliverable("out/a.json", "schemas/a.schema.json"),)
    assert found.unmatched_schemas == ("schemas/b.schema.json",)
    assert found.test_command == "go test ./..."
    assert detect(["tests/test_x.py"]).test_command == "pytest -q"
    assert detect(["Cargo.toml"]).test_command == "cargo test"
    scripts = json.dumps({"scripts": {"test": "jest"}})
    assert detect(["package.json"], scripts).test_command == "npm test"
    assert detect(["package.json"], "{}").test_command is None


def test_writes_valid_config_and_workflows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _layout(tmp_path)
    assert main(["init", "--repo", str(tmp_path), "--graders", "--catch-up"]) == 0
    out = capsys.readouterr().out
    assert "rubricate/approval" in out
    assert "rubricate-data" in out
    assert "badges/repo.json" in out
    workflows = sorted(p.name for p in (tmp_path / ".github/workflows").iterdir())
    assert workflows == ["catch-up.yml", "graders.yml", "rubricate.yml"]
    config = tmp_path / ".github/rubricate.yml"
    text = config.read_text(encoding="utf-8")
    assert '#   - glob: "out/result.json"' in text
    assert "#     run: pytest -q" in text
    assert "schemas/orphan.schema.json" in text
    assert validate_path(str(config)) == (True, [f"ok {config} (config)"])


def test_uncommented_entries_are_valid(tmp_path: Path) -> None:
    _layout(tmp_path)
    found = detect(["schemas/result.schema.json", "out/result.json", "pytest.ini"])
    config = tmp_path / ".github/rubricate.yml"
    config.parent.mkdir()
    config.write_text(render_config(found, active=True), encoding="utf-8")
    valid, lines = validate_path(str(config))
    assert valid, lines


def test_refuses_to_overwrite_without_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / ".github/rubricate.yml"
    config.parent.mkdir()
    config.write_text("rubric: mine\n", encoding="utf-8")
    assert main(["init", "--repo", str(tmp_path)]) == 2
    assert f"{config} exists" in capsys.readouterr().err
    assert config.read_text(encoding="utf-8") == "rubric: mine\n"
    assert not (tmp_path / ".github/workflows").exists()
    assert main(["init", "--repo", str(tmp_path), "--force"]) == 0
    assert "rubric: agora-v3" in config.read_text(encoding="utf-8")


def test_dry_run_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _layout(tmp_path)
    assert main(["init", "--repo", str(tmp_path), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "would write" in out
    assert "name: rubricate" in out
    assert not (tmp_path / ".github").exists()


def test_workflow_is_the_bundled_template(tmp_path: Path) -> None:
    assert main(["init", "--repo", str(tmp_path)]) == 0
    written = (tmp_path / ".github/workflows/rubricate.yml").read_text(encoding="utf-8")
    template = ROOT / "examples/workflows/rubricate.yml"
    assert written == template.read_text(encoding="utf-8")


def test_wheel_ships_the_workflow_templates() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"examples/workflows" = "rubricate/_data/workflows"' in pyproject


def test_action_pins_the_workflows_and_a_bad_pin_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _layout(tmp_path)
    pin = "acme/rubricate@" + "ab12" * 10
    assert main(["init", "--repo", str(tmp_path), "--graders", "--action", pin]) == 0
    assert "0. Pin rubricate" not in capsys.readouterr().out
    for name in ("rubricate.yml", "graders.yml"):
        text = (tmp_path / ".github/workflows" / name).read_text(encoding="utf-8")
        assert f"uses: {pin} # v" in text
        assert "0" * 40 not in text
    assert main(["init", "--repo", str(tmp_path), "--action", "acme/rubricate@v1"]) == 2
    assert "full 40-character commit SHA" in capsys.readouterr().err


def test_without_action_the_next_steps_say_what_to_replace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", "--repo", str(tmp_path), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "uses: OWNER/rubricate@" + "0" * 40 in out
    assert "0. Pin rubricate in the workflow(s): replace OWNER/rubricate@" + "0" * 40 in out
