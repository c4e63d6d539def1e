"""Repository globs and file kinds."""

from __future__ import annotations

import fnmatch

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rubricate.evidence import file_kinds


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("out/*.json", "out/a.json", True),
        ("out/*.json", "out/sub/a.json", False),
        ("*.py", "a.py", True),
        ("*.py", "pkg/a.py", False),
        ("**/*.py", "a.py", True),
        ("**/*.py", "pkg/sub/a.py", True),
        ("src/**", "src/a/b.c", True),
        ("docs/", "docs/x/y.md", True),
        ("docs/", "docsx/y.md", False),
        ("./out/a?.json", "out/ab.json", True),
        ("out/a?.json", "out/a/.json", False),
        ("[!a]*.txt", "b.txt", True),
        ("[!a]*.txt", "a.txt", False),
        ("[ab].txt", "b.txt", True),
        ("data/(x).csv", "data/(x).csv", True),
    ],
)
def test_glob_match(pattern: str, path: str, expected: bool) -> None:
    assert file_kinds.glob_match(pattern, path) is expected


@given(st.lists(st.sampled_from(["a", "b", "/", ".", "x"]), max_size=10).map("".join))
def test_single_star_agrees_with_fnmatch_within_a_segment(name: str) -> None:
    if "/" not in name:
        assert file_kinds.glob_match("a*", name) == fnmatch.fnmatchcase(name, "a*")


@pytest.mark.parametrize(
    ("path", "test", "source"),
    [
        ("tests/test_x.py", True, False),
        ("src/latest.py", False, True),
        ("src/contest.py", False, True),
        ("pkg/foo_test.go", True, False),
        ("web/app.test.ts", True, False),
        ("src/FooTest.java", True, False),
        ("conftest.py", True, False),
        ("src/__tests__/hooks.test-d.tsx", True, False),
        ("types/hooks.test-d.ts", True, False),
        ("playground/test-utils.ts", False, False),
        ("spec/test_helper.rb", True, False),
        ("src/latest-utils.ts", False, True),
        ("src/contest-rules.ts", False, True),
        ("src/testHelpers.js", False, False),
        ("testutil/testutil.go", False, False),
        ("__tests__/test-utils.ts", True, False),
        ("R/test-that.R", False, True),
        ("R/test-state.R", False, True),
        ("README.md", False, False),
    ],
)
def test_kinds(path: str, test: bool, source: bool) -> None:
    assert file_kinds.is_test(path) is test
    assert file_kinds.is_source(path) is source
    helper = not (test or source) and file_kinds.extension(path) in file_kinds.SOURCE_EXTS
    assert file_kinds.is_test_helper(path) is helper


def test_other_kinds() -> None:
    assert file_kinds.is_fixture("tests/fixtures/a.json")
    assert file_kinds.is_example("examples/demo.py")
    assert file_kinds.is_data("data/x.parquet")
    assert not file_kinds.is_data("x.json")
    assert file_kinds.is_lockfile("poetry.lock")
    assert file_kinds.is_lockfile("web/package-lock.json")
    assert file_kinds.is_manifest("requirements-dev.txt")
    assert file_kinds.is_manifest("pyproject.toml")
    assert all(file_kinds.is_checksum(p) for p in ("SHA256SUMS", "d/x.csv.sha256", "checksums.txt"))
    assert not file_kinds.is_checksum("notes.txt")
    assert file_kinds.structured_kind("a/b.yml") == "yaml"
    assert file_kinds.structured_kind("tsconfig.json") is None
    assert file_kinds.structured_kind("x.jsonc") is None
    assert file_kinds.extension(".gitignore") == ""


@pytest.mark.parametrize(
    "path",
    [
        "rollup.config.js",
        "web/vite.config.ts",
        "jest.config.mjs",
        ".eslintrc.js",
        "noxfile.py",
        "docs/conf.py",
        "setup.py",
        "serde/build.rs",
        "android/build.gradle.kts",
        "Package.swift",
        "mix.exs",
    ],
)
def test_build_and_tool_configs_are_not_source(path: str) -> None:
    """ajv-validator/ajv 00b0e247 changed only `rollup.config.js` and package.json: no test due."""
    assert not file_kinds.is_source(path)
    assert file_kinds.is_source("src/config.js")


def test_type_tests_and_support_folders() -> None:
    assert file_kinds.is_type_test("src/a.test-d.tsx")
    assert file_kinds.is_type_test("index.d.ts")
    assert not file_kinds.is_type_test("src/a.test.ts")
    assert file_kinds.support_folder("docs/code/progress/main.c") == "docs/"
    roots = frozenset({"packages/lit"})
    assert file_kinds.support_folder("packages/lit/scripts/m.mjs", roots) == "packages/lit/scripts/"
    assert file_kinds.support_folder("packages/lit/scripts/m.mjs") is None
    assert file_kinds.support_folder("src/agent/tools/search.py") is None
    assert file_kinds.support_folder("internal/doc/render.go") is None
    assert file_kinds.support_folder("app/docs/build.py") is None
    assert file_kinds.package_roots(frozenset({"packages/lit/package.json", "go.mod"})) == roots
    assert file_kinds.support_folder("src/docs.py") is None
    assert file_kinds.support_folder("data-raw/storms.R") == "data-raw/"
    assert file_kinds.support_folder("R/data-raw.R") is None


def test_an_agent_skill_folder_is_a_support_folder() -> None:
    paths = frozenset({"skills/review/SKILL.md", "skills/review/review.py", "src/a/SKILL.md"})
    skills = file_kinds.skill_folders(paths)
    assert skills == frozenset({"skills/review", "src/a"})
    assert file_kinds.support_folder("skills/review/review.py", skills=skills) == "skills/review/"
    assert file_kinds.support_folder("skills/other/other.py", skills=skills) is None
    assert file_kinds.support_folder("src/a/tool.py", skills=skills) is None  # below a code root


@pytest.mark.parametrize(
    ("path", "output"),
    [
        ("testdata/TestView/alt.golden", True),
        ("src/__snapshots__/view.test.ts.snap", True),
        ("pkg/testdata/screen.ansi", True),
        ("golden/help.txt", True),
        ("src/golden/compare.go", False),
        ("tests/fixtures/user.json", False),
        ("testdata/config.yaml", False),
        ("fixtures/cut.ini", False),
    ],
)
def test_recorded_output_is_golden_or_snapshot_output_only(path: str, *, output: bool) -> None:
    assert file_kinds.is_recorded_output(path) is output


@pytest.mark.parametrize(
    ("path", "policy"),
    [
        ("SECURITY.md", True),
        ("contributing.md", True),
        (".github/CODE_OF_CONDUCT.md", True),
        ("docs/GOVERNANCE.md", True),
        (".github/PULL_REQUEST_TEMPLATE/fix.md", True),
        ("tools/agent/AGENTS.md", True),
        ("docs/support.md", False),
        ("docs/guide/security.md", False),
        ("docs/integrations/claude.md", False),
        ("lib/SECURITY.md", False),
        ("SECURITY.py", False),
    ],
)
def test_policy_documents_are_read_where_github_reads_them(path: str, *, policy: bool) -> None:
    assert file_kinds.is_policy(path) is policy
