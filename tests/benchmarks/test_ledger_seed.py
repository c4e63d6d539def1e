"""The seeder of the ledger benchmarks writes the branch one append of all its events writes,
byte for byte, validating and serialising each event once."""

from __future__ import annotations

import importlib
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

from rubricate.ledger.backends import DataBranchStore

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
SEEDED_TREE = "2629279f090b6c7c318211db2349abada3380843"
"""The tree of 1,500 seeded events before the seeder reused each event's text (byte-identical)."""


@pytest.fixture
def modules(monkeypatch: pytest.MonkeyPatch) -> tuple[ModuleType, ModuleType]:
    """`bench_ledger` and `ledger_seed`, imported as the benchmarks import each other."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    return importlib.import_module("bench_ledger"), importlib.import_module("ledger_seed")


def _bare(path: Path) -> Path:
    subprocess.run(["git", "init", "--quiet", "--bare", str(path)], check=True)
    return path


def _tree(remote: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(remote), "rev-parse", "rubricate-data^{tree}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def test_a_seed_writes_what_one_append_writes(
    modules: tuple[ModuleType, ModuleType], tmp_path: Path
) -> None:
    bench, seed = modules
    seeded = _bare(tmp_path / "seeded.git")
    assert seed.seed_branch(seeded, bench.job_records(1500), "o/r") == 1500
    appended = _bare(tmp_path / "appended.git")
    with DataBranchStore(str(appended)) as store:
        assert store.append(bench.make_events(1500)).added == 1500
    assert _tree(seeded) == _tree(appended) == SEEDED_TREE


def test_a_record_that_is_not_canonical_is_refused(
    modules: tuple[ModuleType, ModuleType], tmp_path: Path
) -> None:
    bench, seed = modules
    [job] = bench.job_records(5)
    job[1] = {**job[1], "scores": {"quality": 4}}  # reads back as 4.0: not its line's text
    with pytest.raises(ValueError, match="not canonical"):
        seed.seed_branch(_bare(tmp_path / "seeded.git"), iter([job]), "o/r")
