"""`bench_verify.py --remote-from` measures a seeded branch: its clone keeps only the ledger,
and `verify --fix` rebuilds from it exactly the files the seeder wrote."""

from __future__ import annotations

import importlib
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

from rubricate.ledger.backends import DataBranchStore

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture
def modules(monkeypatch: pytest.MonkeyPatch) -> tuple[ModuleType, ModuleType, ModuleType]:
    """`bench_ledger`, `ledger_seed` and `bench_verify`, imported as the benchmarks import them."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    names = ("bench_ledger", "ledger_seed", "bench_verify")
    bench, seed, verify = (importlib.import_module(name) for name in names)
    return bench, seed, verify


def _git(remote: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", f"--git-dir={remote}", *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_a_seeded_clone_holds_only_the_ledger_and_its_fix_rebuilds_the_seed(
    modules: tuple[ModuleType, ModuleType, ModuleType], tmp_path: Path
) -> None:
    bench, seed, verify = modules
    seeded = tmp_path / "seeded.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(seeded)], check=True)
    assert seed.seed_branch(seeded, bench.job_blocks(600), "o/r") == 600
    (tmp_path / "work").mkdir()
    clone, counts = verify.clone_seeded(seeded, tmp_path / "work")
    files = _git(clone, "ls-tree", "-r", "--name-only", "rubricate-data").splitlines()
    assert files
    assert all(path.startswith("ledger/") for path in files)
    assert counts == {"shards": len(files)}
    assert _git(clone, "rev-parse", "rubricate-data:ledger") == _git(
        seeded, "rev-parse", "rubricate-data:ledger"
    )
    with DataBranchStore(str(clone)) as store:
        fixed = store.fix()
    assert fixed.result.commit is not None
    assert fixed.report.clean
    seeded_tree = _git(seeded, "rev-parse", "rubricate-data^{tree}")
    assert _git(clone, "rev-parse", "rubricate-data^{tree}") == seeded_tree
