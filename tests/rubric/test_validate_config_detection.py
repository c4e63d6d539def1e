"""`rubricate validate`: a config with a mistyped key is read as a config, and `--strict`
prints no `ok` line for a file it fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubricate.cli.main import main
from rubricate.rubric.validate import is_config

from .helpers import DATA

Capture = pytest.CaptureFixture[str]


def test_a_mistyped_config_key_is_named(tmp_path: Path, capsys: Capture) -> None:
    config = tmp_path / "settings.yml"
    config.write_text("rubric: agora-v3\ndeliverable:\n  - path: out/x.json\n")
    assert main(["validate", str(config)]) == 2
    out = capsys.readouterr().out
    assert out == f"{config}:2:1: unknown key 'deliverable' (did you mean 'deliverables'?)\n"


@pytest.mark.parametrize(
    ("text", "config"),
    [
        ("rubric: agora-v3\ndeliverable: []\n", True),
        ("rubrik: agora-v3\njudge: {model: x}\n", True),
        ("deliverable: []\n", False),  # no key spelt right: nothing says it is a config
        ("id: r\nscale: {min: 1, max: 5}\ncriteria: []\n", False),
        ("rubric: agora-v3\ncriteria: []\n", False),
    ],
)
def test_a_config_is_told_by_its_keys(text: str, config: bool) -> None:
    assert is_config(text, "some.yml") is config


def test_strict_prints_no_ok_for_a_file_it_fails(capsys: Capture) -> None:
    path = str(DATA / "agentv-plain.yml")
    assert main(["validate", path]) == 0
    assert f"ok {path}" in capsys.readouterr().out
    assert main(["validate", "--strict", path]) == 2
    out = capsys.readouterr().out
    assert "warning" in out
    assert f"ok {path}" not in out
