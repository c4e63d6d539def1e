"""The JSON Schema Test Suite benchmark (`benchmarks/schema_test_suite.py`) on a small suite
that the test writes: verdicts through the format check, remotes by the suite's address,
number tokens as written, and every kind of outcome counted."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.benchmarks.test_injection_corpora import BENCHMARKS

GROUPS = [
    {
        "description": "integers",
        "schema": {"type": "integer"},
        "tests": [
            {"description": "one", "data": 1, "valid": True},
            {"description": "one point zero", "data": 1.0, "valid": True},
            {"description": "a string", "data": "x", "valid": False},
            {"description": "claimed wrong", "data": 2, "valid": False},
        ],
    },
    {
        "description": "remote ref",
        "schema": {"$ref": "http://localhost:1234/draft2020-12/integer.json"},
        "tests": [
            {"description": "remote integer", "data": 1, "valid": True},
            {"description": "remote string", "data": "a", "valid": False},
        ],
    },
    {
        "description": "a ref cycle",
        "schema": {"$ref": "#"},
        "tests": [{"description": "anything", "data": 1, "valid": True}],
    },
]
REMOTE = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "integer"}


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    return importlib.import_module("schema_test_suite")


def run(bench: ModuleType, suite: Path, capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    assert bench.main([str(suite), "--drafts", "draft2020-12", *args]) == 0
    return json.loads(capsys.readouterr().out)["drafts"]["draft2020-12"]


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    tests = tmp_path / "tests" / "draft2020-12"
    tests.mkdir(parents=True)
    (tests / "cases.json").write_text(json.dumps(GROUPS))
    remotes = tmp_path / "remotes" / "draft2020-12"
    remotes.mkdir(parents=True)
    (remotes / "integer.json").write_text(json.dumps(REMOTE))
    return tmp_path


def test_every_case_gets_its_verdict(
    bench: ModuleType, suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found = run(bench, suite, capsys)
    assert found["total"] == {
        "cases": 7,
        "agree": 5,
        "disagree": 1,
        "not_checked": 1,
        "errors": 0,
    }
    wrong = found["files"]["cases.json"]["not_agreed"]
    assert wrong[0] == "integers / claimed wrong: invalid -> valid"
    assert wrong[1].startswith("a ref cycle / anything: valid -> not checked (not validated:")


def test_without_the_address_map_a_remote_ref_is_not_checked(
    bench: ModuleType, suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found = run(bench, suite, capsys, "--no-url-map")
    assert found["total"]["not_checked"] == 3
    assert "rubricate never fetches schemas" in found["files"]["cases.json"]["not_agreed"][1]


def test_number_tokens_are_written_back_as_the_file_has_them(bench: ModuleType) -> None:
    data = bench.load_tokens(b'{"a": [1.0, 1e400, 12345678901234567890]}')
    assert bench.dump_tokens(data) == '{"a": [1.0, 1e400, 12345678901234567890]}'


def test_a_missing_draft_is_a_clear_error(
    bench: ModuleType, suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert bench.main([str(suite), "--drafts", "draft7"]) == 2
    assert capsys.readouterr().err == "error: the suite has no tests/draft7\n"
