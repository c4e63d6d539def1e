"""The verifiability heuristics over real git changes."""

from __future__ import annotations

from pathlib import Path

from rubricate.evidence.report_model import CheckResult
from rubricate.evidence.verifiability import verifiability_check

from .gitrepo import FileValue, snapshot_of

BASE: dict[str, FileValue] = {"README.md": "# project\n", "src/app.py": "x = 1\n"}


def check(tmp_path: Path, head: dict[str, FileValue], *, body: str = "") -> CheckResult:
    return verifiability_check(snapshot_of(tmp_path, BASE, head, body=body))


def test_source_with_tests_fixtures_and_example(tmp_path: Path) -> None:
    result = check(
        tmp_path,
        {
            "src/app.py": "x = 2\n",
            "tests/test_app.py": "def test_x():\n    assert True\n",
            "tests/fixtures/input.json": "{}\n",
            "README.md": "# project\n\n```sh\npython -m app\n```\n",
        },
    )
    assert (result.status, result.value) == ("pass", 1.0)
    assert result.evidence == (
        "tests: tests/fixtures/input.json, tests/test_app.py",
        "fixtures: tests/fixtures/input.json",
        "runnable example: README.md",
    )


def test_source_without_tests(tmp_path: Path) -> None:
    result = check(tmp_path, {"src/app.py": "x = 3\n", "src/more.py": "y = 1\n"})
    assert (result.status, result.value) == ("warn", 0.0)
    assert [(f.path, f.message) for f in result.findings] == [
        ("src/app.py", "source changes without test changes: src/app.py, src/more.py")
    ]


def test_nothing_applies_leaves_it_unscored(tmp_path: Path) -> None:
    result = check(tmp_path, {"notes.md": "short note\n"})
    assert (result.status, result.value) == ("skip", None)
    assert result.evidence == ("no verifiability heuristic applies to this change",)


def test_randomness_needs_a_seed_in_the_same_file(tmp_path: Path) -> None:
    unseeded = check(
        tmp_path / "a", {"tools/sample.py": "import random\nx = random.choice([1, 2])\n"}
    )
    assert [(f.path, f.line) for f in unseeded.findings][-1] == ("tools/sample.py", 2)
    assert any(e.startswith("missing seeds") for e in unseeded.evidence)
    seeded = check(
        tmp_path / "b",
        {
            "tools/sample.py": "import random\nrandom.seed(7)\nx = random.choice([1])\n",
            "tests/test_sample.py": "def test_s():\n    pass\n",
        },
    )
    assert seeded.value == 1.0
    assert "seeds: seed set in tools/sample.py" in seeded.evidence


def test_data_files_need_checksums(tmp_path: Path) -> None:
    missing = check(tmp_path / "a", {"data/table.csv": "a,b\n1,2\n"})
    assert (missing.value, missing.findings[0].path) == (0.0, "data/table.csv")
    with_file = check(
        tmp_path / "b", {"data/table.csv": "a,b\n", "data/SHA256SUMS": "ab" * 32 + "  table.csv\n"}
    )
    assert with_file.value == 1.0
    digest = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    in_body = check(tmp_path / "c", {"data/table.csv": "a,b\n"}, body=f"sha256: {digest}")
    assert in_body.value == 1.0
    lfs = "version https://git-lfs.github.com/spec/v1\noid sha256:" + digest + "\nsize 12\n"
    assert check(tmp_path / "d", {"data/big.parquet": lfs}).value == 1.0


def test_prose_needs_sources(tmp_path: Path) -> None:
    prose = "".join(f"Fact number {i} about the world.\n" for i in range(12))
    missing = check(tmp_path / "a", {"docs/facts.md": prose})
    assert missing.value == 0.0
    assert missing.findings[0].message == "12 lines of prose added without links to sources"
    linked = check(
        tmp_path / "b", {"docs/facts.md": prose}, body="Source: https://example.org/facts"
    )
    assert linked.value == 1.0
    inline = check(tmp_path / "c", {"docs/facts.md": prose + "See [the paper](https://x.org/p).\n"})
    assert inline.value == 1.0


def test_dependency_changes_need_a_lockfile_or_pins(tmp_path: Path) -> None:
    loose = check(tmp_path / "a", {"requirements.txt": "requests>=2\n"})
    assert loose.value == 0.0
    pinned = check(tmp_path / "b", {"requirements.txt": "requests==2.32.3\n# comment\n"})
    assert pinned.value == 1.0
    locked = check(
        tmp_path / "c",
        {
            "pyproject.toml": '[project]\ndependencies = ["httpx>=0.27"]\n',
            "uv.lock": "version = 1\n",
        },
    )
    assert locked.value == 1.0
    unrelated = check(tmp_path / "d", {"pyproject.toml": "[tool.ruff]\nline-length = 100\n"})
    assert unrelated.value is None
    npm = check(
        tmp_path / "e", {"package.json": '{\n  "version": "1.0.0",\n  "left-pad": "^1.3.0"\n}\n'}
    )
    assert npm.value == 0.0
