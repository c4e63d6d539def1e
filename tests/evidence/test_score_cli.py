"""`rubricate score` end to end: the bundled example, flags, exit codes and clear errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rubricate.cli.main import main

from .gitrepo import commit, git, init_repo, make_change

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(autouse=True)
def _no_judge_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("demo") / "repo"
    script = EXAMPLES / "make-example-repo.sh"
    subprocess.run(["bash", str(script), str(dest)], check=True, capture_output=True)
    return dest


def score(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["score", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_on_the_bundled_example(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = score(capsys, "--repo", str(demo), "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["rubric"] == {"id": "agora-v3", "version": "3.0"}
    assert data["base"] == git(demo, "rev-parse", "main")
    assert data["head"] == git(demo, "rev-parse", "add-wordstats")
    assert data["verdict"] == "incomplete"
    assert data["weighted_total"] == 5.0
    assert data["normalized"] == 1.0
    assert [(c["id"], c["score"], c["source"]) for c in data["criteria"]] == [
        ("spec_adherence", 5.0, "auto"),
        ("completeness", 5.0, "auto"),
        ("verifiability", 5.0, "auto"),
        ("format_correctness", 5.0, "auto"),
    ]
    assert all(c["evidence"] for c in data["criteria"])
    assert data["not_scored"] == ["quality"]
    statuses = {c["id"]: c["status"] for c in data["checks"]}
    assert statuses == {
        "inputs": "pass",
        "format": "pass",
        "verifiability": "pass",
        "completeness": "pass",
        "spec_adherence": "pass",
        "grader:unit-tests": "pass",
    }
    assert all(set(c) >= {"id", "status", "findings"} for c in data["checks"])
    assert "no judge: OPENAI_API_KEY is not set" in data["notes"]


def test_table_markdown_and_spec(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = score(capsys, "--repo", str(demo), "--no-graders", "--judge", "none")
    assert code == 0
    assert "verdict: incomplete: not scored yet: quality" in out
    assert "grader:unit-tests  skip" in out
    spec = str(EXAMPLES / "spec.md")
    code, out, _ = score(
        capsys, "--repo", str(demo), "--format", "markdown", "--spec", spec, "--judge", "none"
    )
    assert out.startswith("### ⏳ rubricate: **incomplete**")
    assert "4 of 4 open checklist items covered" in out


@pytest.mark.parametrize(("fail_on", "expected"), [("never", 0), ("fail", 0), ("incomplete", 1)])
def test_fail_on(
    demo: Path, capsys: pytest.CaptureFixture[str], fail_on: str, expected: int
) -> None:
    code, _, _ = score(
        capsys, "--repo", str(demo), "--fail-on", fail_on, "--no-graders", "--judge", "none"
    )
    assert code == expected


def test_the_quick_start_command_runs_without_network(demo: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "rubricate", "score", "--repo", str(demo)],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(demo)},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "format_correctness" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_example_repo_is_reproducible(tmp_path: Path, demo: Path) -> None:
    again = tmp_path / "again"
    subprocess.run(
        ["bash", str(EXAMPLES / "make-example-repo.sh"), str(again)],
        check=True,
        capture_output=True,
    )
    assert git(again, "rev-parse", "HEAD") == git(demo, "rev-parse", "HEAD")
    rebuilt = subprocess.run(
        ["bash", str(EXAMPLES / "make-example-repo.sh"), str(again)],
        capture_output=True,
        check=False,
    )
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert git(again, "rev-parse", "HEAD") == git(demo, "rev-parse", "HEAD")


def test_example_script_refuses_a_foreign_directory(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "keep.txt").write_text("mine\n")
    refused = subprocess.run(
        ["bash", str(EXAMPLES / "make-example-repo.sh"), str(foreign)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert refused.returncode == 2
    assert "not an example built by this script" in refused.stderr
    assert (foreign / "keep.txt").read_text() == "mine\n"


def test_errors_exit_2_with_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    code, _, err = score(capsys, "--repo", str(plain))
    assert (code, err.strip()) == (2, f"rubricate: error: not a git repository: {plain}")
    change = make_change(tmp_path, {"a.txt": "1\n"}, {"a.txt": "2\n"})
    code, _, err = score(capsys, "--repo", str(change.repo), "--base", "nope")
    assert code == 2
    assert "unknown ref 'nope'" in err
    code, _, err = score(capsys, "--repo", str(change.repo), "--spec", str(tmp_path / "none.md"))
    assert code == 2
    assert "cannot read --spec" in err
    code, _, err = score(capsys, "--repo", str(change.repo), "--rubric", "no-such-rubric")
    assert code == 2
    assert "rubric 'no-such-rubric' not found" in err
    assert "Traceback" not in err


def test_invalid_config_at_the_base_is_located(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    change = make_change(
        tmp_path, {".github/rubricate.yml": "rubric: agora-v3\ndeliverable: []\n"}, {"a": "1\n"}
    )
    code, _, err = score(capsys, "--repo", str(change.repo))
    assert code == 2
    assert err.startswith(".github/rubricate.yml:2:1: unknown key 'deliverable'")


def test_an_invalid_schema_is_named_on_its_files_and_the_run_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = {
        ".github/rubricate.yml": (
            "deliverables:\n"
            '  - {glob: "out/*.json", schema: s.json}\n'
            '  - {glob: "ok/*.json", schema: t.json}\n'
        ),
        "s.json": '{"type": 12}',
        "t.json": '{"type": "object"}',
    }
    change = make_change(tmp_path, base, {"out/a.json": "{}\n", "ok/b.json": "[]\n"})
    code, out, _ = score(
        capsys, "--repo", str(change.repo), "--no-graders", "--format", "json", "--fail-on", "never"
    )
    assert code == 0
    (check,) = [c for c in json.loads(out)["checks"] if c["id"] == "format"]
    found = {(f["path"], f["severity"]): f["message"] for f in check["findings"]}
    assert "schema s.json is not a valid JSON Schema" in found[("out/a.json", "warning")]
    assert "is not of type 'object'" in found[("ok/b.json", "error")]


def nested(depth: int, key: str, draft: str | None = None) -> str:
    """A schema of `{key: ...}` `depth` deep (`properties` as `{"properties": {"a": ...}}`)."""
    schema: dict[str, object] = {}
    for _ in range(depth):
        schema = {"properties": {"a": schema}} if key == "properties" else {key: schema}
    return json.dumps(schema if draft is None else {"$schema": draft, **schema})


def ref_chain(length: int) -> str:
    """A schema whose `$ref` goes through `length` definitions, each a `$ref` to the next."""
    defs: dict[str, object] = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(length)}
    return json.dumps({"$defs": {**defs, f"d{length}": {"type": "object"}}, "$ref": "#/$defs/d0"})


DRAFT_7 = "http://json-schema.org/draft-07/schema#"
DRAFT_4 = "http://json-schema.org/draft-04/schema#"


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        (nested(100, "properties"), "nests too deeply to check"),
        (nested(180, "properties", DRAFT_7), "nests too deeply to check"),
        (nested(180, "properties", DRAFT_4), "nests too deeply to check"),
        (nested(200, "items"), "nests too deeply to check"),
        (ref_chain(2000), "a chain of $refs or the data nests too deeply to check"),
        ('{"$schema": "https://example.org/dialect", "type": "object"}', "unknown $schema"),
        ('{"$ref": "common.json#/$defs/x"}', "$ref 'common.json' names no file"),
        ('{"$ref": "https://example.org/x.json"}', "rubricate never fetches schemas"),
        (
            '{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, '
            '"$ref": "#/$defs/a"}',
            "validation went round in circles",
        ),
        ('{"type": ', "does not parse"),
    ],
)
def test_a_schema_that_cannot_be_used_is_a_warning_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], schema: str, message: str
) -> None:
    base = {".github/rubricate.yml": 'deliverables:\n  - {glob: "*.json", schema: s.json}\n'}
    change = make_change(tmp_path, {**base, "s.json": schema}, {"a.json": "{}\n"})
    code, out, err = score(
        capsys, "--repo", str(change.repo), "--no-graders", "--format", "json", "--fail-on", "never"
    )
    assert (code, err) == (0, "")
    (check,) = [c for c in json.loads(out)["checks"] if c["id"] == "format"]
    (finding,) = [f for f in check["findings"] if f["path"] == "a.json"]
    assert finding["severity"] == "warning"
    assert finding["message"].startswith("not validated: schema s.json")
    assert message in finding["message"]


@pytest.mark.parametrize("schema", ['{"items": {"$ref": "#"}}', '{"type": "array"}'])
def test_a_deliverable_nested_too_deeply_is_a_finding_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], schema: str
) -> None:
    base = {".github/rubricate.yml": 'deliverables:\n  - {glob: "*.json", schema: s.json}\n'}
    deep = "[" * 10_000 + "]" * 10_000 + "\n"
    change = make_change(tmp_path, {**base, "s.json": schema}, {"a.json": deep})
    code, out, err = score(
        capsys, "--repo", str(change.repo), "--no-graders", "--format", "json", "--fail-on", "never"
    )
    assert (code, err) == (0, "")
    (check,) = [c for c in json.loads(out)["checks"] if c["id"] == "format"]
    (finding,) = [f for f in check["findings"] if f["path"] == "a.json"]
    assert "too deeply" in finding["message"], finding


def test_lone_surrogates_in_a_deliverable_give_verdicts_in_every_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = '{"properties": {"a": {"pattern": "^a"}}, "additionalProperties": {"type": "string"}}'
    base = {".github/rubricate.yml": 'deliverables:\n  - {glob: "*.json", schema: s.json}\n'}
    head = {"a.json": '{"a": "\\ud800", "\\ud83d": 2}\n'}
    change = make_change(tmp_path, {**base, "s.json": schema}, head)
    args = ("--repo", str(change.repo), "--no-graders", "--fail-on", "never", "--format")
    for output in ("json", "markdown", "table"):
        code, out, err = score(capsys, *args, output)
        assert (code, err) == (0, ""), output
        assert "ud800" in out, output
        assert "ud83d" in out, output
    code, out, _ = score(capsys, *args, "json")
    (check,) = [c for c in json.loads(out)["checks"] if c["id"] == "format"]
    assert sorted(f["message"] for f in check["findings"]) == [
        "/\\ud83d: 2 is not of type 'string'",
        "/a: '\\ud800' does not match '^a'",
    ]


def test_config_comes_from_the_base_never_the_head(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head_config = 'deliverables:\n  - {glob: "*.json", schema: {type: array}}\n'
    change = make_change(
        tmp_path, {"README.md": "x\n"}, {".github/rubricate.yml": head_config, "a.json": "{}"}
    )
    code, out, _ = score(capsys, "--repo", str(change.repo), "--format", "json", "--judge", "none")
    fmt = next(c for c in json.loads(out)["checks"] if c["id"] == "format")
    assert code == 0
    assert fmt["findings"] == []
    local = tmp_path / "local.yml"
    local.write_text(head_config)
    code, out, _ = score(
        capsys,
        "--repo",
        str(change.repo),
        "--format",
        "json",
        "--config",
        str(local),
        "--judge",
        "none",
    )
    fmt = next(c for c in json.loads(out)["checks"] if c["id"] == "format")
    assert fmt["findings"][0]["message"] == "/: {} is not of type 'array'"


def test_same_base_and_head_is_an_empty_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = init_repo(tmp_path / "r")
    commit(repo, {"a.txt": "1\n"})
    code, out, err = score(capsys, "--repo", str(repo), "--format", "json", "--judge", "none")
    assert code == 2
    assert out == ""
    assert "nothing to score" in err


def test_env_names_the_config_allows_reach_the_rubric(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    base = {
        ".github/rubricate.yml": "rubric: evals/e.yaml\nagentv: {env: [AUDIENCE]}\n",
        "evals/e.yaml": "assert:\n  - 'Greets {{ env.AUDIENCE }}'\n",
    }
    change = make_change(tmp_path, base, {"README.md": "hello\n"})
    monkeypatch.setenv("AUDIENCE", "operators")
    code, out, err = score(capsys, "--repo", str(change.repo), "--format", "json")
    assert code == 0, err
    assert json.loads(out)["rubric"]["id"] == "e"
    unlisted = base["evals/e.yaml"].replace("AUDIENCE", "OTHER")
    change = make_change(tmp_path / "b", {**base, "evals/e.yaml": unlisted}, {"README.md": "x\n"})
    code, _, err = score(capsys, "--repo", str(change.repo), "--format", "json")
    assert code == 2
    assert "OTHER is not listed" in err
