"""The seeder of the ledger benchmarks writes the branch one append of all its events writes,
byte for byte, on one process or two, checking that each event's values are its line's own."""

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
    assert seed.seed_branch(seeded, bench.job_blocks(1500), "o/r") == 1500
    appended = _bare(tmp_path / "appended.git")
    with DataBranchStore(str(appended)) as store:
        assert store.append(bench.make_events(1500)).added == 1500
    assert _tree(seeded) == _tree(appended) == SEEDED_TREE


def test_two_processes_write_the_same_branch(
    modules: tuple[ModuleType, ModuleType], tmp_path: Path
) -> None:
    bench, seed = modules
    seeded = _bare(tmp_path / "seeded.git")
    usage: dict[str, float] = {}
    blocks = bench.job_blocks(1500, size=7)
    assert seed.seed_branch(seeded, blocks, "o/r", processes=2, usage=usage) == 1500
    assert _tree(seeded) == SEEDED_TREE
    assert usage["child_cpu_s"] > 0


def test_the_blocks_are_the_jobs_in_order(modules: tuple[ModuleType, ModuleType]) -> None:
    bench, _ = modules
    for count in (3, 5, 7, 1500, 1503):
        every = list(bench.job_records(count))
        assert [job for block in bench.job_blocks(count, size=7) for job in block] == every


def test_a_failing_child_fails_the_seed_and_commits_nothing(
    modules: tuple[ModuleType, ModuleType], tmp_path: Path
) -> None:
    bench, seed = modules
    [job] = bench.job_records(5)
    bad = [{**job[1], "scores": {"quality": 4}}]  # reads back as 4.0: not its line's text
    seeded = _bare(tmp_path / "seeded.git")
    with pytest.raises(RuntimeError, match="child process failed"):
        seed.seed_branch(seeded, [iter([job]), iter([bad])], "o/r", processes=2)
    assert (
        subprocess.run(
            ["git", "-C", str(seeded), "rev-parse", "--verify", "-q", "rubricate-data"],
            capture_output=True,
        ).returncode
        != 0
    )


def test_a_record_that_is_not_canonical_is_refused(
    modules: tuple[ModuleType, ModuleType], tmp_path: Path
) -> None:
    bench, seed = modules
    [job] = bench.job_records(5)
    job[1] = {**job[1], "scores": {"quality": 4}}  # reads back as 4.0: not its line's text
    with pytest.raises(ValueError, match="canonical line"):
        seed.seed_branch(_bare(tmp_path / "seeded.git"), [iter([job])], "o/r")
