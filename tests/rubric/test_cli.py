"""`rubricate validate`, `rubricate rubric show` and `rubricate rubric score`, through main()."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rubricate.cli.main import main

from .helpers import DATA, REPO

Capture = pytest.CaptureFixture[str]


def run(capsys: Capture, *argv: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of one CLI run (argparse usage errors included)."""
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_validate_valid_files(capsys: Capture) -> None:
    agora = str(REPO / "rubrics" / "agora-v3.yml")
    graders = str(DATA / "agentv-graders.yml")
    code, out, _ = run(capsys, "validate", agora, graders)
    assert code == 0
    lines = out.splitlines()
    assert f"ok {agora} (native, 5 criteria)" in lines
    assert f"ok {graders}#code-quality (AgentV assertions (v4), 3 criteria)" in lines
    assert f"ok {graders}#tool-use (AgentV assertions (v4), 2 criteria)" in lines
    assert any(line.startswith(f"{graders}:12:15: warning: ") for line in lines)


def test_validate_invalid_and_missing_files(tmp_path: Path, capsys: Capture) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text("criteria:\n  - {id: a, outcome: The answer is right, weight: 0.5}\n")
    good = str(DATA / "native-minimal.yml")
    code, out, _ = run(capsys, "validate", str(bad), good, str(tmp_path / "gone.yml"))
    assert code == 2
    assert out.splitlines() == [
        f"{bad}:1:1: native criterion weights must sum to 1.00, but they sum to 0.5",
        f"ok {good} (native, 2 criteria)",
        f"{tmp_path / 'gone.yml'}: no such file",
    ]


def test_validate_strict_fails_on_warnings(capsys: Capture) -> None:
    path = str(DATA / "agentv-plain.yml")
    assert run(capsys, "validate", path)[0] == 0
    assert run(capsys, "validate", "--strict", path)[0] == 2


def test_validate_usage_error(capsys: Capture) -> None:
    code, _, err = run(capsys, "validate")
    assert code == 2
    assert "PATH" in err


def test_validate_config_files(tmp_path: Path, capsys: Capture) -> None:
    github = tmp_path / ".github"
    github.mkdir()
    (tmp_path / "rubrics").mkdir()
    (tmp_path / "rubrics" / "mine.yml").write_text((DATA / "agentv-graders.yml").read_text())
    config = github / "rubricate.yml"
    config.write_text("rubric: rubrics/mine.yml#tool-use\n")
    assert run(capsys, "validate", str(config))[:2] == (0, f"ok {config} (config)\n")
    config.write_text("rubric: rubrics/mine.yml\n")
    code, out, _ = run(capsys, "validate", str(config))
    assert code == 2
    assert out.startswith(f"{config}:1:9: {'rubrics/mine.yml'} has 2 cases")
    config.write_text("rubric: agora-v3\njudge: {model: x, timeout_s: 0}\n")
    code, out, _ = run(capsys, "validate", str(config))
    assert (code, out) == (2, f"{config}:2:30: timeout_s should be greater than 0, got 0\n")


def test_validate_detects_config_by_keys(tmp_path: Path, capsys: Capture) -> None:
    config = tmp_path / "settings.yml"
    config.write_text("data_branch: scores\nrubric: code-review\n")
    assert run(capsys, "validate", str(config))[:2] == (0, f"ok {config} (config)\n")


def test_validate_reports_a_broken_rubric_named_by_a_config(
    tmp_path: Path, capsys: Capture
) -> None:
    (tmp_path / ".github").mkdir()
    (tmp_path / "r.yml").write_text("rubrics:\n  - id: a\n    weight: 2\n")
    config = tmp_path / ".github" / "rubricate.yaml"
    config.write_text("rubric: r.yml\n")
    code, out, _ = run(capsys, "validate", str(config))
    assert code == 2
    assert out == (
        "r.yml:2:5: missing required key 'outcome': say what the criterion checks"
        " (AgentV skips such a criterion)\n"
    )


def test_show_json_shape(capsys: Capture) -> None:
    code, out, _ = run(capsys, "rubric", "show", "agent-run-quality", "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"id", "version", "dialect", "scale", "pass", "criteria"}
    assert data["scale"] == {"min": 0.0, "max": 100.0, "open": True}
    assert data["pass"] == {"min_total": 50.0, "min_each": None}
    assert set(data["criteria"][0]) == {
        "id", "outcome", "weight", "required", "min_score", "nullable", "judged_from",
    }  # fmt: skip
    assert data["criteria"][0]["judged_from"] == "request"


def test_show_defaults_to_the_configured_rubric(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capture
) -> None:
    monkeypatch.chdir(tmp_path)
    assert json.loads(run(capsys, "rubric", "show", "--json")[1])["id"] == "agora-v3"
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "rubricate.yml").write_text("rubric: code-review\n")
    assert json.loads(run(capsys, "rubric", "show", "--json")[1])["id"] == "code-review"


def test_show_text_and_markdown(capsys: Capture) -> None:
    code, out, _ = run(capsys, "rubric", "show", "agora-v3")
    assert code == 0
    assert out.splitlines()[0] == "agora-v3  version 3.0  (native)"
    assert "spec_adherence      0.3" in out
    markdown = run(capsys, "rubric", "show", "agora-v3", "--markdown")[1]
    assert "| `spec_adherence` Spec adherence | 0.3 |" in markdown


def test_show_errors(capsys: Capture) -> None:
    code, _, err = run(capsys, "rubric", "show", "no-such-rubric")
    assert code == 2
    assert err.startswith("rubricate: error: rubric 'no-such-rubric' not found")
    assert "Traceback" not in err


def test_score_json_shape(capsys: Capture) -> None:
    code, out, _ = run(
        capsys,
        "rubric",
        "score",
        "agora-v3",
        "spec=4",
        "comp=3",
        "qual=3",
        "ver=3",
        "format=5",
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert data == {
        "rubric": {"id": "agora-v3", "version": "3.0"},
        "weighted_total": 3.5,
        "normalized": 0.625,
        "verdict": "pass",
        "criteria": [
            {"id": "spec_adherence", "score": 4.0, "passed": True},
            {"id": "completeness", "score": 3.0, "passed": True},
            {"id": "quality", "score": 3.0, "passed": True},
            {"id": "verifiability", "score": 3.0, "passed": True},
            {"id": "format_correctness", "score": 5.0, "passed": True},
        ],
        "failed": [],
        "missing": [],
        "best_total": None,
    }


def test_score_missing_and_failing_criteria_still_exit_zero(capsys: Capture) -> None:
    code, out, _ = run(capsys, "rubric", "score", "spec=5", "quality=1", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["verdict"] == "fail"
    assert data["failed"] == ["quality"]
    assert data["missing"] == ["completeness", "verifiability", "format_correctness"]


def test_score_booleans_and_nulls(capsys: Capture) -> None:
    path = str(DATA / "agentv-objects.yml")
    code, out, _ = run(
        capsys, "rubric", "score", path, "core=true", "partition=1", "complexity=FALSE", "--json"
    )
    data = json.loads(out)
    assert code == 0
    assert [c["score"] for c in data["criteria"]] == [True, True, False]
    assert data["normalized"] == pytest.approx(0.7778, abs=1e-4)
    assert data["verdict"] == "fail"
    code, out, _ = run(capsys, "rubric", "score", "agent-run-quality", "self=null", "--json")
    assert json.loads(out)["criteria"][-1] == {
        "id": "self_extension",
        "score": None,
        "passed": None,
    }


def test_score_human_table(capsys: Capture) -> None:
    code, out, _ = run(
        capsys, "rubric", "score", "agora-v3", "spec=5", "comp=5", "qual=5", "ver=5", "format=1"
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[2].split() == ["criterion", "score", "passed"]
    assert lines[7].split() == ["format_correctness", "1", "no"]
    assert "verdict         fail" in lines
    assert "failed          format_correctness" in lines


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("speed=3", "unknown criterion 'speed'; valid ids: spec_adherence, completeness"),
        ("quality=7", "quality: 7 is out of range; expected a number from 1 to 5"),
        ("quality=null", "quality: null is not allowed; expected a number from 1 to 5"),
        ("quality=good", "quality: 'good' is not a number; expected a number from 1 to 5"),
        ("quality=true", "quality: true is not a number; expected a number from 1 to 5"),
        ("quality=\u0664", "quality: '\u0664' is not a number; expected a number from 1 to 5"),
        ("quality=1e0", "quality: '1e0' is not a number; expected a number from 1 to 5"),
        ("quality", "expected ID=VALUE, got 'quality'"),
    ],
)
def test_score_errors_exit_two_without_traceback(item: str, message: str, capsys: Capture) -> None:
    code, out, err = run(capsys, "rubric", "score", "agora-v3", "spec=4", item)
    assert code == 2
    assert out == ""
    assert err.startswith(f"rubricate: error: {message}")
    assert "Traceback" not in err


def test_score_ambiguous_prefix(capsys: Capture) -> None:
    code, _, err = run(capsys, "rubric", "score", "agent-run-quality", "s=50")
    assert code == 2
    assert "'s' is ambiguous: it matches subagent_orchestration, self_extension" in err


def test_list_builtins(capsys: Capture) -> None:
    assert run(capsys, "rubric", "list")[:2] == (0, "agent-run-quality\nagora-v3\ncode-review\n")
