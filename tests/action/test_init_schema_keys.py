"""`rubricate init` proposes deliverables from `$schema` keys, and only what checks offline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rubricate.cli.init_cmd import Deliverable, _detect_tree, render_config
from rubricate.cli.main import main
from rubricate.cli.rubric_cmd import validate_path
from rubricate.cli.schema_keys import MAX_READ_BYTES, cover, find, resolve, schema_key
from tests.evidence.gitrepo import commit, git, make_change

SCHEMA = json.dumps(
    {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"$schema": {"type": "string"}, "level": {"enum": ["on", "off"]}},
        "additionalProperties": False,
    }
)
OPTIONS = "packages/tool/configuration_schema.json"
MODELINE = "# yaml-language-server: $schema=../schema/service.json\n"


def _options(to_root: str, level: str = "on") -> str:
    return json.dumps({"$schema": f"{to_root}{OPTIONS}", "level": level})


def _write(root: Path, files: dict[str, str | bytes]) -> None:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        data = text if isinstance(text, bytes) else text.encode("utf-8")
        (root / path).write_bytes(data)


def _linter_repo(root: Path) -> None:
    """The shape of a linter's repository: a root config and rule option files in test specs,
    some of them invalid on purpose, all naming the configuration schema by a relative path."""
    files: dict[str, str | bytes] = {
        OPTIONS: SCHEMA,
        "tool.json": _options("./"),
        "crates/js/tests/specs/ruleA/valid.options.json": _options("../../../../../"),
        "crates/js/tests/specs/ruleA/invalid.options.json": _options("../../../../../"),
        "crates/js/tests/specs/ruleB/valid.options.json": _options("../../../../../"),
        "crates/js/tests/specs/ruleB/broken.options.json": _options("../../../../../", "loud"),
        "crates/js/tests/specs/ruleB/plain.options.json": json.dumps({"level": "off"}),
        "crates/js/tests/specs/ruleB/input.js": "x = 1\n",
        "crates/css/tests/specs/ruleC/valid.options.json": _options("../../../../../"),
        "crates/css/tests/specs/ruleC/other.options.json": json.dumps({"level": 3}),
        "package.json": json.dumps({"name": "x", "scripts": {"test": "jest"}}),
        "renovate.json": json.dumps({"$schema": "https://docs.renovatebot.com/renovate.json"}),
        "nx/project.json": json.dumps({"$schema": "../node_modules/nx/project-schema.json"}),
        "schemas/extra.json": json.dumps(
            {"$schema": "https://json-schema.org/draft/2020-12/schema"}
        ),
    }
    _write(root, files)


def test_groups_files_naming_a_schema_into_globs_that_match_no_other_file(
    tmp_path: Path,
) -> None:
    _linter_repo(tmp_path)
    found = _detect_tree(tmp_path)
    assert found.deliverables == (
        Deliverable("crates/js/tests/specs/*/*.options.json", OPTIONS),
        Deliverable("crates/css/tests/specs/ruleC/valid.options.json", OPTIONS),
        Deliverable("tool.json", OPTIONS),
    )
    assert found.notes == (
        f"1 file(s) name {OPTIONS} but do not match it today (a glob may take them in): "
        "crates/js/tests/specs/ruleB/broken.options.json",
        "nx/project.json names node_modules/nx/project-schema.json, which is not in the repository",
        "renovate.json names a remote schema (https://docs.renovatebot.com/renovate.json); "
        "vendor it to check it",
    )
    assert found.test_command == "npm test"


def test_the_proposed_config_validates_and_scores_a_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base: dict[str, str | None] = {
        OPTIONS: SCHEMA,
        "conf/a.json": _options("../"),
        "conf/b.json": _options("../"),
    }
    change = make_change(tmp_path, base, {"conf/b.json": _options("../", "loud")})
    git(change.repo, "checkout", "-q", "main")
    found = _detect_tree(change.repo)
    assert found.deliverables == (Deliverable("conf/*.json", OPTIONS),)
    commit(change.repo, {".github/rubricate.yml": render_config(found, active=True)})
    assert validate_path(str(change.repo / ".github/rubricate.yml"))[0]
    git(change.repo, "checkout", "-q", "topic")
    git(change.repo, "merge", "-q", "main", "-m", "merge")
    code = main(["score", "--no-graders", "--repo", str(change.repo), "--base", "main"])
    out = capsys.readouterr().out + "\n"
    assert code == 0
    assert "conf/b.json" in out
    assert "/level" in out


def test_a_name_is_resolved_beside_the_file_then_from_the_root_never_outside() -> None:
    files = frozenset({"schemas/s.json", "a/b/s.json", "a/c.json"})
    assert resolve("a/c.json", "../schemas/s.json", files) == ("local", "schemas/s.json")
    assert resolve("a/c.json", "./b/s.json#/defs", files) == ("local", "a/b/s.json")
    assert resolve("a/c.json", "schemas/s.json", files) == ("local", "schemas/s.json")
    assert resolve("a/c.json", "/schemas/s.json", files) == ("local", "schemas/s.json")
    assert resolve("a/c.json", "file:../schemas/s.json", files) == ("local", "schemas/s.json")
    uri = "file:///repo/schemas/s.json"
    assert resolve("a/c.json", uri, files, "/repo") == ("local", "schemas/s.json")
    assert resolve("a/c.json", "file:///etc/s.json", files, "/repo")[0] == "outside"
    assert resolve("a/c.json", "../../../etc/s.json", files)[0] == "outside"
    assert resolve("a/c.json", "./missing.json", files) == ("missing", "a/missing.json")
    assert resolve("a/c.json", "vscode://schemas/settings", files)[0] == "outside"
    meta = "http://json-schema.org/draft-07/schema#"
    assert resolve("a/c.json", meta, files) == ("meta", meta)
    assert resolve("a/c.json", "https://x.org/s.json", files)[0] == "remote"


def test_keys_are_read_from_json_and_both_yaml_forms() -> None:
    assert schema_key("a.json", b'{"$schema": "./s.json", "x": 1}') == "./s.json"
    assert schema_key("a.json", b'{"x": {"$schema": "./s.json"}}') is None
    assert schema_key("a.json", b'{"$schema": "./s.json",') is None
    assert schema_key("a.json", b'["$schema"]') is None
    assert schema_key("a.json", '{"$schema": "é"}'.encode("latin-1")) is None
    modeline = b"# yaml-language-server: $schema=../s.json\nkey: 1\n"
    assert schema_key("a.yaml", modeline) == "../s.json"
    assert schema_key("a.yml", b"$schema: './s.json'\nkey: 1\n") == "./s.json"
    assert schema_key("a.yml", b"nested:\n  $schema: ./s.json\n") is None


def test_yaml_files_with_a_modeline_become_deliverables(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "schema/service.json": SCHEMA,
            "services/a.yaml": f"{MODELINE}level: on\n",
            "services/b.yaml": f"{MODELINE}level: off\n",
        },
    )
    # YAML 1.2, as validators and editors read it: `on` and `off` are strings of the enum.
    assert _detect_tree(tmp_path).deliverables == (
        Deliverable("services/*.yaml", "schema/service.json"),
    )
    (tmp_path / "services/a.yaml").write_text(f"{MODELINE}level: true\n", encoding="utf-8")
    found = _detect_tree(tmp_path)
    assert "1 file(s) name schema/service.json but do not match it today" in found.notes[0]


def test_unsafe_or_unreadable_files_are_skipped(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    repo = tmp_path / "repo"
    _write(outside, {"s.json": SCHEMA, "c.json": _options("./")})
    _write(
        repo,
        {
            OPTIONS: SCHEMA,
            "big/c.json": '{"$schema": "../'
            + OPTIONS
            + '", "pad": "'
            + "x" * MAX_READ_BYTES
            + '"}',
            "gen/c.json": '{"$schema": "../' + OPTIONS + '", "note": "@generated"}',
            "vendor/c.json": _options("../"),
            "package-lock.json": _options("./"),
            "bad/c.json": '{"$schema": "../' + OPTIONS + '", ',
            "bin/c.json": b'{"$schema": "../' + OPTIONS.encode() + b'", "x": "\xff"}',
            "node_modules/p/c.json": _options("../../"),
        },
    )
    (repo / "linked.json").symlink_to(outside / "c.json")
    (repo / "linked-dir").symlink_to(outside, target_is_directory=True)
    (repo / "to-outside.json").write_text(json.dumps({"$schema": "../outside/s.json"}))
    found = _detect_tree(repo)
    assert found.deliverables == ()
    assert found.notes == ()


def test_a_schema_that_does_not_compile_is_named_not_proposed(tmp_path: Path) -> None:
    _write(tmp_path, {"s.json": '{"type": 12}', "a.json": '{"$schema": "./s.json"}'})
    found = find(tmp_path, ["s.json", "a.json"])
    assert found.deliverables == ()
    assert found.notes[0].startswith("s.json does not compile: schema s.json is not a valid")


def test_a_schema_key_wins_over_a_same_name_pairing_and_pairs_must_match(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "schemas/config.schema.json": SCHEMA,
            "schemas/tool.json": SCHEMA,
            "other/config.json": json.dumps({"$schema": "../schemas/tool.json"}),
            "conf/config.json": json.dumps({"level": "on"}),
            ".changes/config.json": json.dumps({"gitSiteUrl": "https://example.org"}),
        },
    )
    found = _detect_tree(tmp_path)
    assert found.deliverables == (
        Deliverable("conf/config.json", "schemas/config.schema.json"),
        Deliverable("other/config.json", "schemas/tool.json"),
    )
    assert found.notes == (
        ".changes/config.json is named like schemas/config.schema.json but does not match it",
    )


def test_cover_prefers_few_wide_globs_and_keeps_other_files_out() -> None:
    examples = [f"examples/{name}/app.conf.json" for name in ("a", "b", "c")]
    files = [*examples, "examples/d/src/app.conf.json", "examples/a/package.json"]
    assert cover(examples, files) == ["examples/*/app.conf.json"]
    assert cover(examples[:1], files) == examples[:1]
    lone = ["conf/a.json", "conf/b.json"]
    assert cover(lone, [*lone, "conf/package.json"]) == lone
    assert cover(lone, [*lone, "conf/c.json"], lambda path: path == "conf/c.json") == [
        "conf/*.json"
    ]


def test_dry_run_prints_the_proposal_and_the_notes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _linter_repo(tmp_path)
    git(tmp_path, "init", "--quiet")
    assert main(["init", "--repo", str(tmp_path), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert '#   - glob: "crates/js/tests/specs/*/*.options.json"' in out
    assert f"#     schema: {OPTIONS}" in out
    assert "# Not proposed: renovate.json names a remote schema" in out
    assert not (tmp_path / ".github").exists()


def test_validate_names_a_bad_schema_at_every_glob_that_uses_it(tmp_path: Path) -> None:
    entries = "".join(f'  - glob: "{d}/*.json"\n    schema: s.json\n' for d in ("a", "b"))
    config = "deliverables:\n" + entries
    _write(tmp_path, {"s.json": '{"type": 12}', ".github/rubricate.yml": config})
    valid, lines = validate_path(str(tmp_path / ".github/rubricate.yml"))
    assert not valid
    assert [line.split(": ", 1)[0].rsplit(":", 2)[-2] for line in lines] == ["3", "5"]
    assert all("schema s.json is not a valid JSON Schema" in line for line in lines)
    (tmp_path / "s.json").write_text(SCHEMA, encoding="utf-8")
    assert validate_path(str(tmp_path / ".github/rubricate.yml"))[0]


def test_every_schema_gets_a_deliverable_and_init_never_crashes_on_a_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    count = 45  # more than the 40 entries init used to stop at
    files: dict[str, str | bytes] = {f"s{n:02}.json": SCHEMA for n in range(count)}
    files |= {
        f"d{n:02}/{m}.json": json.dumps({"$schema": f"../s{n:02}.json"})
        for n in range(count)
        for m in "ab"
    }
    _write(tmp_path, files)
    found = find(tmp_path, list(files))
    assert found.deliverables == tuple((f"d{n:02}/*.json", f"s{n:02}.json") for n in range(count))
    assert (found.schemas, found.covered, found.notes) == (count, count, ())
    files = {k: v for k, v in files.items() if k < "d03" or not k.startswith("d")}

    def choke(*args: object) -> None:
        raise AttributeError("'list' object has no attribute 'get'")

    monkeypatch.setattr("rubricate.evidence.deliverable_schemas.compile_schema", choke)
    assert find(tmp_path, list(files)).notes == tuple(
        f"s{n:02}.json does not compile: AttributeError: 'list' object has no attribute 'get'"
        for n in range(3)
    )


def test_a_file_name_cannot_break_out_of_a_comment(tmp_path: Path) -> None:
    import yaml

    remote = json.dumps({"$schema": "https://example.org/s.json"})
    _write(tmp_path, {"a\nrubric: evil\u2028graders: []\x85.json": remote})
    text = render_config(_detect_tree(tmp_path))
    assert yaml.safe_load(text) == {"rubric": "agora-v3"}
    assert "# Not proposed: a rubric: evil graders: [] .json names a remote schema" in text


def test_a_schema_ref_through_a_symlinked_folder_is_not_read(tmp_path: Path) -> None:
    outside, repo = tmp_path / "outside", tmp_path / "repo"
    _write(outside, {"evil.json": SCHEMA})
    files = {"s.json": '{"$ref": "linked/evil.json"}', "a.json": _options("./"), "b.json": "{}"}
    _write(repo, files)
    (repo / "a.json").write_text(json.dumps({"$schema": "./s.json"}), encoding="utf-8")
    (repo / "linked").symlink_to(outside, target_is_directory=True)
    found = find(repo, ["s.json", "a.json", "b.json", "linked"])
    assert found.deliverables == ()
    assert "s.json does not compile" in found.notes[0]
    assert "linked/evil.json" in found.notes[0]
