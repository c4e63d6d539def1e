"""The generated JSON Schemas are up to date and agree with the loaders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from rubricate import schemas
from rubricate.config import load_config

from .helpers import DATA, REPO

SCHEMAS = REPO / "schemas"


def _validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads((SCHEMAS / name).read_text(encoding="utf-8")))


@pytest.mark.parametrize("name", sorted(schemas.GENERATORS))
def test_schema_files_are_up_to_date(name: str) -> None:
    path = SCHEMAS / name
    assert path.is_file(), f"{name} is missing: run `python -m rubricate.schemas`"
    fresh = schemas.generated()[name]
    assert path.read_text(encoding="utf-8") == fresh, (
        f"{name} is stale: run `python -m rubricate.schemas`"
    )


@pytest.mark.parametrize("name", sorted(schemas.GENERATORS))
def test_schemas_are_valid_json_schemas(name: str) -> None:
    schema: dict[str, Any] = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)


RUBRIC_FILES = sorted([*DATA.glob("*.yml"), *(REPO / "rubrics").glob("*.yml")])


@pytest.mark.parametrize("path", RUBRIC_FILES, ids=lambda p: p.name)
def test_valid_rubric_files_match_the_rubric_schema(path: Path) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert list(_validator("rubric.schema.json").iter_errors(data)) == []


@pytest.mark.parametrize(
    "text",
    [
        "criteria:\n  - {id: a, outcome: b, wieght: 1}\n",
        "criteria:\n  - {id: a, outcome: b, weight: -1}\n",
        "axes:\n  a: {description: x, nullable: maybe}\n",
        "hello: world\n",
    ],
)
def test_invalid_rubric_files_fail_the_rubric_schema(text: str) -> None:
    errors = list(_validator("rubric.schema.json").iter_errors(yaml.safe_load(text)))
    assert errors


def test_config_schema_accepts_the_design_example() -> None:
    text = """\
rubric: agora-v3
deliverables:
  - glob: "out/*.json"
    schema: schemas/result.schema.json
graders:
  - id: tests
    run: pytest -q
    criterion: verifiability
    timeout: 300
judge:
  model: gpt-4.1-mini
  max_input_tokens: 32000
  timeout_s: 60
commands:
  roles: {score: write, approve: write, revise: write, rate: write, override: maintain}
reputation:
  weights: {completion_rate: 0.27, timeliness_score: 0.20, dispute_penalty: 0.20,
            rating_score: 0.13, rubric_quality: 0.20}
  trust: {admin: 1.0, maintain: 1.0, write: 0.75, triage: 0.5, default: 0.25}
  sla_hours: null
data_branch: rubricate-data
"""
    load_config(text)
    assert list(_validator("config.schema.json").iter_errors(yaml.safe_load(text))) == []
    bad = yaml.safe_load("judge: {modle: x}\n")
    assert list(_validator("config.schema.json").iter_errors(bad))


def test_check_mode_reports_stale_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert schemas.main(["--check", "--dir", str(tmp_path)]) == 1
    assert "stale" in capsys.readouterr().err
    assert schemas.main(["--dir", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(schemas.GENERATORS)
    assert schemas.main(["--check", "--dir", str(tmp_path)]) == 0
