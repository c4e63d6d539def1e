"""The format check over real git changes: good, bad and edge deliverables."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rubricate.config import Config
from rubricate.evidence.deliverable_schemas import compile_deliverable_schemas
from rubricate.evidence.format_check import format_check
from rubricate.evidence.results import CheckResult
from rubricate.evidence.snapshot import MAX_PARSE_BYTES
from rubricate.evidence.spec import parse_spec

from .gitrepo import FileValue, Link, config_of, snapshot_of

SCHEMA = json.dumps(
    {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["name", "count"],
        "properties": {
            "name": {"type": "string"},
            "count": {"type": "integer", "minimum": 0},
            "when": {"type": "string", "format": "date"},
        },
    }
)
CONFIG = """
deliverables:
  - glob: "out/*.json"
    schema: schemas/result.schema.json
"""
BASE: dict[str, FileValue] = {"schemas/result.schema.json": SCHEMA, "README.md": "x\n"}


def run_format(
    tmp_path: Path,
    head: dict[str, FileValue],
    *,
    config: Config | None = None,
    base: dict[str, FileValue] | None = None,
    spec: str = "",
) -> CheckResult:
    cfg = config or config_of(CONFIG)
    snap = snapshot_of(tmp_path, base or BASE, head, config=cfg, spec=spec)
    schemas = compile_deliverable_schemas(cfg, snap.base_files)
    return format_check(snap, cfg, schemas, parse_spec(snap.spec))


def messages(result: CheckResult) -> list[tuple[str | None, int | None, str]]:
    return [(f.path, f.line, f.message) for f in result.findings]


def test_valid_deliverable_scores_full(tmp_path: Path) -> None:
    result = run_format(tmp_path, {"out/a.json": '{"name": "a", "count": 2}\n'})
    assert (result.status, result.value, result.findings) == ("pass", 1.0, ())
    assert result.evidence == ("1 of 1 format checks passed", "deliverables valid: out/a.json")


def test_schema_errors_have_pointer_and_line(tmp_path: Path) -> None:
    doc = '{\n  "name": "a",\n  "count": -1,\n  "when": "not-a-date"\n}\n'
    result = run_format(tmp_path, {"out/a.json": doc, "out/b.json": '{"name": "b", "count": 1}'})
    assert result.status == "fail"
    assert result.value == 0.5
    assert messages(result) == [
        ("out/a.json", 3, "/count: -1 is less than the minimum of 0"),
        ("out/a.json", 4, "/when: 'not-a-date' is not a 'date'"),
    ]


def test_missing_required_property_is_located_at_the_object(tmp_path: Path) -> None:
    result = run_format(tmp_path, {"out/a.json": '{\n  "name": "a"\n}\n'})
    assert messages(result) == [("out/a.json", 1, "/: 'count' is a required property")]


def test_syntax_error_in_deliverable_and_other_files(tmp_path: Path) -> None:
    result = run_format(
        tmp_path,
        {
            "out/a.json": '{"name": "a",\n "count": }\n',
            "config/app.yaml": "a: [1\n",
            "pyproject.toml": "[tool\n",
            "ok.json": "[1, 2]\n",
        },
    )
    found = {(path, line) for path, line, _ in messages(result)}
    assert found == {("out/a.json", 2), ("config/app.yaml", 2), ("pyproject.toml", 1)}
    assert result.value == pytest.approx(1 / 4)


def test_yaml_and_toml_deliverables(tmp_path: Path) -> None:
    config = config_of(
        """
deliverables:
  - glob: "out/*.yml"
    schema: schemas/result.schema.json
  - glob: "out/*.toml"
    schema: schemas/result.schema.json
"""
    )
    result = run_format(
        tmp_path,
        {
            "out/a.yml": "name: a\ncount: 1\nwhen: 2024-01-02\n",
            "out/b.toml": 'name = "b"\ncount = "many"\n',
        },
        config=config,
    )
    assert messages(result) == [("out/b.toml", 2, "/count: 'many' is not of type 'integer'")]


def test_glob_matching_nothing_is_a_warning_and_required_missing_is_an_error(
    tmp_path: Path,
) -> None:
    config = config_of(
        """
deliverables:
  - glob: "out/*.json"
    schema: schemas/result.schema.json
  - glob: "report/*.md"
    required: true
"""
    )
    result = run_format(tmp_path, {"src/x.py": "x = 1\n"}, config=config)
    assert [(f.severity, f.message) for f in result.findings] == [
        ("warning", "deliverables[0] 'out/*.json' matches no file"),
        ("error", "required deliverable missing: no file matches 'report/*.md'"),
    ]
    assert result.value == 0.0


def test_spec_named_deliverable_missing(tmp_path: Path) -> None:
    spec = "## Deliverables\n- `out/summary.json`\n- `out/a.json`\n"
    result = run_format(tmp_path, {"out/a.json": '{"name": "a", "count": 1}'}, spec=spec)
    assert messages(result) == [
        (None, None, "the spec names deliverable 'out/summary.json', but the head has no such file")
    ]
    assert result.value == 0.5


def test_unreadable_deliverables(tmp_path: Path) -> None:
    huge = b'{"name": "' + b"x" * MAX_PARSE_BYTES + b'", "count": 1}'
    result = run_format(
        tmp_path,
        {
            "out/big.json": huge,
            "out/bin.json": b"\x00\x01{}",
            "out/latin.json": b'{"name": "caf\xe9", "count": 1}',
            "out/link.json": Link("../README.md"),
        },
    )
    by_path = {f.path: f.message for f in result.findings}
    assert by_path["out/big.json"].startswith("deliverable is larger than 1 MiB")
    assert by_path["out/bin.json"] == "deliverable is binary; not validated"
    assert by_path["out/latin.json"] == "deliverable is not valid UTF-8 text; not validated"
    assert by_path["out/link.json"] == "deliverable is a symlink (not followed); not validated"
    assert result.value == 0.0


def test_large_structured_file_outside_deliverables_is_left_to_the_inputs_check(
    tmp_path: Path,
) -> None:
    big = b"[" + b"1," * (MAX_PARSE_BYTES // 2) + b"1]"
    result = run_format(tmp_path, {"data/big.json": big, "ok.json": "{}"}, config=Config())
    assert result.findings == ()
    assert result.value == 1.0


def test_deleted_deliverable_is_reported(tmp_path: Path) -> None:
    base = {**BASE, "out/a.json": '{"name": "a", "count": 1}', "out/b.json": "{}"}
    result = run_format(tmp_path, {"out/b.json": None}, base=base)
    assert messages(result) == [("out/b.json", None, "a deliverable is deleted by the change")]


def test_nothing_to_check_leaves_the_criterion_unscored(tmp_path: Path) -> None:
    result = run_format(tmp_path, {"src/a.py": "a = 1\n"}, config=Config())
    assert (result.status, result.value) == ("skip", None)
    assert result.evidence == ("no deliverable or JSON/YAML/TOML file in the change to check",)


def test_deliverable_without_schema_only_needs_to_exist_or_parse(tmp_path: Path) -> None:
    config = config_of('deliverables:\n  - glob: "out/*"\n')
    result = run_format(
        tmp_path, {"out/plot.png": b"\x89PNG\x00", "out/x.json": "{}"}, config=config
    )
    assert (result.value, result.findings) == (1.0, ())


def test_many_errors_are_capped(tmp_path: Path) -> None:
    config = config_of(
        'deliverables:\n  - glob: "out/*.json"\n'
        '    schema: {"type": "array", "items": {"type": "string"}}\n'
    )
    result = run_format(tmp_path, {"out/a.json": json.dumps(list(range(30)))}, config=config)
    assert len(result.findings) == 21
    assert result.findings[-1].message == "... and 10 more schema errors"


def test_a_schema_that_cannot_be_used_is_a_warning_on_its_own_files_only(
    tmp_path: Path,
) -> None:
    config = config_of(CONFIG + '  - glob: "ok/*.json"\n    schema: {type: object}\n')
    head = {"out/a.json": "{}", "ok/b.json": "[]"}
    cases = [
        ('{"type": "nonsense"}', r"schema schemas/result.schema.json is not a valid JSON Schema"),
        (None, r"schemas/result.schema.json is not in the repository at the base"),
        ("{", r"schema schemas/result.schema.json does not parse"),
        ('{"$ref": "gone.json"}', r"\$ref 'schemas/gone.json' names no file"),
    ]
    for number, (text, expected) in enumerate(cases):
        base: dict[str, FileValue] = {"README.md": "x\n"}
        if text is not None:
            base["schemas/result.schema.json"] = text
        result = run_format(tmp_path / str(number), head, base=base, config=config)
        (warning,) = [f for f in result.findings if f.path == "out/a.json"]
        assert warning.severity == "warning"
        assert re.search("not validated: .*" + expected, warning.message), warning.message
        # the other deliverable is still validated; the broken schema's file is no outcome
        (error,) = [f for f in result.findings if f.path == "ok/b.json"]
        assert (error.severity, result.value) == ("error", 0.0)


ASV = (
    '{\n    "project": "p",\n    "build": [\n        "pip install .",\n    ],\n    "url": "a"\n}\n'
)


def test_a_file_that_did_not_parse_at_the_base_is_not_the_change_s_defect(
    tmp_path: Path,
) -> None:
    base = {**BASE, "bench/asv.conf.json": ASV}
    edit = {"bench/asv.conf.json": ASV.replace('"a"', '"b"')}
    kept = run_format(tmp_path / "a", edit, base=base, config=Config())
    assert [(f.path, f.severity) for f in kept.findings] == [("bench/asv.conf.json", "info")]
    assert kept.value is None
    good = {**BASE, "bench/asv.conf.json": ASV.replace('install .",', 'install ."')}
    broken = run_format(tmp_path / "b", {"bench/asv.conf.json": ASV}, base=good, config=Config())
    assert [(f.path, f.severity) for f in broken.findings] == [("bench/asv.conf.json", "error")]
    assert broken.value == 0.0


@pytest.mark.parametrize(
    ("path", "before", "after"),
    [
        ("bench/asv.conf.json", ASV, ASV.replace('"url": "a"', '"url": "a",\n    "x": {oops')),
        ("data/x.json", "", '{"a": [1, 2\n'),
        ("data/x.json", "\n", '{"a": [1, 2\n'),
        ("d/x.json", '{"a": 1,}', '{"a": 1,\n "b": [}'),
        ("d/x.json", '{\r\n "a": 1,\r\n}\r\n', '{\r\n "a": {{,\r\n}\r\n'),
        ("d/x.yaml", "a: 1\nb: [1\n", "c: d: e\na: 1\nb: [1\n"),
    ],
)
def test_a_new_break_in_a_file_broken_at_the_base_is_the_change_s_defect(
    tmp_path: Path, path: str, before: str, after: str
) -> None:
    result = run_format(tmp_path, {path: after}, base={**BASE, path: before}, config=Config())
    assert [(f.path, f.severity) for f in result.findings] == [(path, "error")]


def test_a_renamed_file_broken_further_is_the_change_s_defect(tmp_path: Path) -> None:
    broken = ASV.replace('"url": "a"', '"url": "a",\n    "x": {oops')
    base = {**BASE, "d/x.json": ASV}
    result = run_format(
        tmp_path, {"d/x.json": None, "d/y.json": broken}, base=base, config=Config()
    )
    assert [(f.path, f.severity) for f in result.findings] == [("d/y.json", "error")]
