"""The verifiability heuristics over real git changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubricate.evidence.results import CheckResult
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
        "tests: 1 test file for 1 source file: tests/test_app.py",
        "fixtures: tests/fixtures/input.json",
        "runnable example: README.md",
    )


def test_source_without_tests(tmp_path: Path) -> None:
    result = check(tmp_path, {"src/app.py": "x = 3\n", "src/more.py": "y = 1\n"})
    assert (result.status, result.value) == ("warn", 0.5)  # a note: held at the middle
    assert [f.kind for f in result.findings] == ["note"]
    assert [(f.path, f.message) for f in result.findings] == [
        ("src/app.py", "2 source files changed without a test change: src/app.py, src/more.py")
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
    assert any(e.startswith("note: missing seeds") for e in unseeded.evidence)
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
    assert (missing.value, missing.findings[0].path) == (0.5, "data/table.csv")
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
    assert missing.value == 0.5
    assert missing.findings[0].message == "12 lines of prose added without links to sources"
    linked = check(
        tmp_path / "b", {"docs/facts.md": prose}, body="Source: https://example.org/facts"
    )
    assert linked.value == 1.0
    inline = check(tmp_path / "c", {"docs/facts.md": prose + "See [the paper](https://x.org/p).\n"})
    assert inline.value == 1.0


def test_dependency_changes_need_a_lockfile_or_pins(tmp_path: Path) -> None:
    loose = check(tmp_path / "a", {"requirements.txt": "requests>=2\n"})
    assert loose.value is None  # the project keeps no lockfile: ranges are its choice
    assert "no lockfile kept for requirements.txt" in loose.evidence[0]
    kept = {"requirements.txt": "requests>=2\n", "requirements.lock": "requests==2.0\n"}
    stale = snapshot_of(tmp_path / "k", {**BASE, **kept}, {"requirements.txt": "requests>=3\n"})
    assert verifiability_check(stale).value == 0.5
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
    assert npm.value is None


GENERATED_TS = (
    "/* eslint-disable */\n/**\n * This file was automatically generated by json-schema-to-"
    "typescript.\n * DO NOT MODIFY IT BY HAND.\n */\nexport type Schema = string;\n"
)


def test_a_regenerated_types_file_is_not_a_source_change(tmp_path: Path) -> None:
    """The shape of an octokit/webhooks PR that only regenerates `payload-types/schema.d.ts`."""
    result = check(tmp_path, {"payload-types/schema.d.ts": GENERATED_TS})
    assert not any("without a test change" in line for line in result.evidence)


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("gen/api.go", "// Code generated by protoc-gen-go. DO NOT EDIT.\npackage api\n"),
        ("src/parser.py", "# @generated by the grammar tool\nX = 1\n"),
        ("vendor/lib/thing.go", "package thing\n"),
        ("third_party/x/y.c", "int y;\n"),
    ],
)
def test_generated_and_vendored_files_are_left_out_and_counted(
    tmp_path: Path, path: str, text: str
) -> None:
    result = check(tmp_path, {path: text, "src/real.py": "y = 2\n"})
    assert result.findings[0].message == (
        "1 source file changed without a test change; 1 generated, vendored or lock files not "
        "counted: src/real.py"
    )


def test_fixtures_and_snapshots_are_not_tests(tmp_path: Path) -> None:
    head: dict[str, FileValue] = {
        "src/app.py": "x = 2\n",
        "test/fixtures/payload.json": "{}\n",
        "src/__snapshots__/app.test.js.snap": "exports[`a`] = 1;\n",
        "pkg/testdata/input.txt": "in\n",
    }
    result = check(tmp_path, head)
    assert result.findings[0].message.startswith("1 source file changed without a test change")


@pytest.mark.parametrize(
    ("path", "before", "after", "value"),
    [
        (  # a Dependabot bump of an exact test pin (python-jsonschema/check-jsonschema #698)
            "pyproject.toml",
            '[project.optional-dependencies]\ntest = [\n    "responses==0.26.1",\n]\n',
            '[project.optional-dependencies]\ntest = [\n    "responses==0.26.2",\n]\n',
            1.0,
        ),
        (
            "pyproject.toml",
            '[project]\ndependencies = [\n    "httpx>=0.27",\n]\n',
            '[project]\ndependencies = [\n    "httpx>=0.28",\n]\n',
            None,
        ),
        (
            "package.json",
            '{\n  "x": {\n  "ajv": "8.1.0"\n}}\n',
            '{\n  "x": {\n  "ajv": "8.2.0"\n}}\n',
            1.0,
        ),
        (
            "package.json",
            '{\n  "x": {\n  "ajv": "^8.1.0"\n}}\n',
            '{\n  "x": {\n  "ajv": "^8.2.0"\n}}\n',
            None,
        ),
        (
            "go.mod",
            "module m\n\nrequire golang.org/x/text v0.3.0\n",
            "module m\n\nrequire golang.org/x/text v0.4.0\n",
            1.0,
        ),
    ],
)
def test_exact_pins_in_a_manifest_count_as_pinned(
    tmp_path: Path, path: str, before: str, after: str, value: float | None
) -> None:
    change = snapshot_of(tmp_path, {**BASE, path: before}, {path: after})
    result = verifiability_check(change)
    assert result.value == value


def test_randomness_in_a_type_test_only_makes_a_type(tmp_path: Path) -> None:
    line = "expectTypeOf(Math.random() > 0.5 ? skip : () => 1).toBeFunction()\n"
    assert check(tmp_path / "a", {"src/__tests__/use.test-d.tsx": line}).findings == ()
    result = check(tmp_path / "b", {"src/__tests__/use.test.tsx": line})
    assert [f.rule for f in result.findings] == ["seeds"]


def test_code_in_an_untested_docs_or_scripts_folder_needs_no_test(tmp_path: Path) -> None:
    docs = {"docs/code/progress/main.c": "int main(void) { return 0; }\n"}
    assert check(tmp_path / "a", docs).findings == ()
    scripts = {"tools/gen.py": "print(1)\n", "tools/test_gen.py": "def test_g():\n    pass\n"}
    snapshot = snapshot_of(tmp_path / "b", {**BASE, **scripts}, {"tools/gen.py": "print(2)\n"})
    assert [f.rule for f in verifiability_check(snapshot).findings] == ["tests"]


@pytest.mark.parametrize(
    ("base", "path", "after"),
    [
        ({"tests/tools/test_search.py": "x = 1\n"}, "src/agent/tools/search.py", "x = 2\n"),
        ({}, "internal/doc/render.go", "package doc\nfunc F() int { return 2 }\n"),
        ({}, "docs/render.go", "package render\nfunc F() int { return 2 }\n"),
        ({"tools/__init__.py": ""}, "tools/search.py", "x = 2\n"),
        ({}, "app/scripts/run.py", "x = 2\n"),
    ],
)
def test_code_in_a_docs_or_tools_folder_of_the_program_needs_a_test(
    tmp_path: Path, base: dict[str, FileValue], path: str, after: str
) -> None:
    before = {**BASE, **base, path: after.replace("2", "1")}
    snapshot = snapshot_of(tmp_path, before, {path: after})
    assert [f.rule for f in verifiability_check(snapshot).findings] == ["tests"]


def test_scripts_of_a_workspace_package_need_no_test(tmp_path: Path) -> None:
    base = {**BASE, "packages/lit/package.json": "{}\n", "packages/lit/scripts/m.mjs": "1;\n"}
    snapshot = snapshot_of(tmp_path, base, {"packages/lit/scripts/m.mjs": "2;\n"})
    assert verifiability_check(snapshot).findings == ()


def test_manifests_and_build_scripts_need_no_test(tmp_path: Path) -> None:
    head = {"setup.py": "install_requires = ['a==2.0']\n", "build.rs": "fn main() {}\n"}
    assert check(tmp_path, head).findings == ()


SENTENCES = "".join(f"Line {n} of the guide says what the flag does.\n" for n in range(12))


def test_prose_beside_the_code_it_documents_needs_no_link(tmp_path: Path) -> None:
    alone = check(tmp_path / "a", {"docs/flags.md": SENTENCES})
    assert [f.rule for f in alone.findings] == ["sources"]
    code = "x = 2\ny = 3\n"
    beside = {"docs/flags.md": SENTENCES, "src/app.py": code, "tests/test_app.py": "x = 1\n"}
    result = check(tmp_path / "b", beside)
    assert result.findings == ()
    assert any("beside the code they document: src/app.py" in line for line in result.evidence)


def test_prose_far_beyond_the_code_beside_it_needs_sources(tmp_path: Path) -> None:
    claims = "".join(f"Benchmark {n} shows the parser is {n + 2}x faster.\n" for n in range(40))
    beside = {"docs/perf.md": claims, "src/app.py": "x = 2\n", "tests/test_app.py": "x = 1\n"}
    assert [f.rule for f in check(tmp_path, beside).findings] == ["sources"]


def test_randomness_in_a_minified_bundle_is_not_the_change_s_code(tmp_path: Path) -> None:
    bundle = "/*! v5 */\n!function(){" + "var a=1;" * 80 + "var t=Math.random()}();\n"
    assert check(tmp_path / "a", {"theme/js/bootstrap.bundle.min.js": bundle}).findings == ()
    result = check(tmp_path / "b", {"theme/js/base.js": bundle})
    assert {f.rule for f in result.findings} == {"seeds", "tests"}


def test_a_hand_written_file_named_like_a_bundle_is_the_change_s_code(tmp_path: Path) -> None:
    js = "export function charge(amount) {\n  // TODO: call the API\n  return Math.random();\n}\n"
    result = check(tmp_path, {"src/pay.min.js": js})
    assert {f.rule for f in result.findings} == {"seeds", "tests"}


def test_prose_named_like_a_test_does_not_make_a_docs_folder_tested(tmp_path: Path) -> None:
    base = {**BASE, "docs/en/_llm-test.md": "# t\n", "docs/js/termynal.js": "var a = 1;\n"}
    snapshot = snapshot_of(tmp_path, base, {"docs/js/termynal.js": "var a = 2;\n"})
    assert verifiability_check(snapshot).findings == ()


@pytest.mark.parametrize(
    ("base", "path"),
    [
        ({}, ".php-cs-fixer.dist.php"),
        ({}, "settings.gradle.kts"),
        ({}, ".github/scripts/check_template.py"),
        ({"site/package.json": "{}\n"}, "site/.vitepress/theme/index.ts"),
    ],
)
def test_tool_configs_and_code_of_hidden_tool_folders_need_no_test(
    tmp_path: Path, base: dict[str, FileValue], path: str
) -> None:
    snapshot = snapshot_of(tmp_path, {**BASE, **base, path: "x = 1\n"}, {path: "x = 2\n"})
    assert verifiability_check(snapshot).findings == ()


@pytest.mark.parametrize(
    ("base", "path"),
    [
        ({".github/scripts/test_check.py": "x = 1\n"}, ".github/scripts/check.py"),
        ({}, "src/.internal/client.ts"),
        ({}, "site/.vitepress/theme/index.ts"),
        ({}, "src/php/.Client.php"),
    ],
)
def test_hidden_folders_that_are_tested_or_part_of_the_program_need_a_test(
    tmp_path: Path, base: dict[str, FileValue], path: str
) -> None:
    snapshot = snapshot_of(tmp_path, {**BASE, **base, path: "x = 1\n"}, {path: "x = 2\n"})
    assert [f.rule for f in verifiability_check(snapshot).findings] == ["tests"]


EX_DOC = (
    '  @doc """\n  Encodes a cookie.\n\n  ## Examples\n\n      iex> encode("k")\n      "k"\n  """\n'
)


def test_a_doctest_below_other_added_lines_is_a_test_change(tmp_path: Path) -> None:
    base = "defmodule M do\n  def encode(k), do: k\nend\n"
    with_doctest = base.replace("  def", EX_DOC + "  def").replace("do: k", "do: to_string(k)")
    snapshot = snapshot_of(tmp_path / "a", {**BASE, "lib/m.ex": base}, {"lib/m.ex": with_doctest})
    assert verifiability_check(snapshot).findings == ()
    untested = base.replace("do: k", "do: to_string(k)")
    snapshot = snapshot_of(tmp_path / "b", {**BASE, "lib/m.ex": base}, {"lib/m.ex": untested})
    assert [f.rule for f in verifiability_check(snapshot).findings] == ["tests"]


@pytest.mark.parametrize(
    ("path", "flagged"),
    [
        ("SECURITY.md", False),
        ("AGENTS.md", False),
        (".github/CONTRIBUTING.md", False),
        ("docs/security-model.md", True),
        ("README.md", True),
        ("security.txt.md", True),
        ("docs/SUPPORT.md", False),
        (".github/pull_request_template.md", False),
        (".github/PULL_REQUEST_TEMPLATE/bugfix.md", False),
        ("packages/core/AGENTS.md", False),
        ("docs/support.md", True),
        ("docs/guide/security.md", True),
        ("docs/integrations/claude.md", True),
        ("docs/source/en/reference/agents.md", True),
        ("packages/core/CONTRIBUTING.md", True),
    ],
)
def test_a_policy_document_states_the_project_s_rules_and_needs_no_sources(
    tmp_path: Path, path: str, *, flagged: bool
) -> None:
    rules = "".join(f"Rule {n}: reports must include the affected version.\n" for n in range(12))
    result = check(tmp_path, {path: rules})
    assert [f.rule for f in result.findings] == (["sources"] if flagged else [])


RS = "pub fn f() -> u8 {\n    1\n}\n"


@pytest.mark.parametrize(
    ("doc", "tested"),
    [
        ("//! Splits the parser.\n//!\n//! ```\n//! assert_eq!(m::f(), 2);\n//! ```\n", True),
        ("/// ```rust,no_run\n/// m::f();\n/// ```\n", True),
        ("//! Splits the parser.\n//!\n//! ```ignore\n//! let x = f();\n//! ```\n", False),
        ("/// ```text\n/// a -> b\n/// ```\n", False),
    ],
)
def test_a_rust_doc_block_is_a_test_only_when_it_runs(
    tmp_path: Path, doc: str, *, tested: bool
) -> None:
    head = {"src/m.rs": doc + RS.replace("1", "2")}
    snapshot = snapshot_of(tmp_path, {**BASE, "src/m.rs": RS}, head)
    assert [f.rule for f in verifiability_check(snapshot).findings] == ([] if tested else ["tests"])


def test_an_old_block_s_closing_fence_is_not_read_as_an_opening_one(tmp_path: Path) -> None:
    base = "/// ```text\n/// a\n/// b\n/// ```\n" + RS
    # git aligns the old block's closer as the first added fence; nothing here runs
    head = "/// ```text\n/// a\n/// c\n/// ```\n///\n/// ```ignore\n/// f();\n/// ```\n" + RS
    snapshot = snapshot_of(
        tmp_path, {**BASE, "src/m.rs": base}, {"src/m.rs": head.replace("1", "2")}
    )
    assert [f.rule for f in verifiability_check(snapshot).findings] == ["tests"]


def test_an_edited_line_inside_a_doc_test_is_a_test_change(tmp_path: Path) -> None:
    base = "/// ```\n/// assert_eq!(m::f(), 1);\n/// ```\n" + RS
    head = base.replace("), 1)", "), 2)").replace("    1", "    2")
    snapshot = snapshot_of(tmp_path, {**BASE, "src/m.rs": base}, {"src/m.rs": head})
    assert verifiability_check(snapshot).findings == ()


PY = "def f():\n    return 1\n"


@pytest.mark.parametrize(
    ("path", "base", "head", "tested"),
    [
        (
            "src/m.py",
            PY,
            'def f():\n    """Two.\n\n    >>> f()\n    2\n    """\n    return 2\n',
            True,
        ),
        ("src/m.py", PY, "def f():\n    # >>> f()\n    return 2\n", False),
        ("src/m.py", PY, 'def f():\n    x = """\n    >>> f()\n    """\n    return 2\n', False),
        (
            "src/H.java",
            "class H {\n  int h(long b) {\n    return (int) b;\n  }\n}\n",
            "class H {\n  int h(long b) {\n    return (int) (b\n        >>> 32);\n  }\n}\n",
            False,
        ),
        (
            "lib/m.ex",
            "defmodule M do\n  def f, do: 1\nend\n",
            'defmodule M do\n  def help, do: """\n  iex> M.f()\n  """\n  def f, do: 2\nend\n',
            False,
        ),
    ],
)
def test_a_doctest_prompt_counts_only_in_its_language_s_documentation(
    tmp_path: Path, path: str, base: str, head: str, *, tested: bool
) -> None:
    snapshot = snapshot_of(tmp_path, {**BASE, path: base}, {path: head})
    assert [f.rule for f in verifiability_check(snapshot).findings] == ([] if tested else ["tests"])


JL = '"""\n    area(r)\n\nThe area.\n"""\narea(r) = pi * r^2\n'
JL_TEST = JL.replace('The area.\n"""', 'The area.\n\n```jldoctest\njulia> area(1)\n3.14\n```\n"""')


def test_a_julia_doc_test_is_a_test_and_a_docstring_edit_no_code(tmp_path: Path) -> None:
    base = {**BASE, "src/geo.jl": JL}
    doctest = snapshot_of(tmp_path / "a", base, {"src/geo.jl": JL_TEST, "src/b.jl": "b() = 2\n"})
    assert verifiability_check(doctest).findings == ()
    docs = snapshot_of(tmp_path / "b", base, {"src/geo.jl": JL.replace("The area", "Area")})
    assert verifiability_check(docs).findings == ()
    plain = JL.replace('The area.\n"""', 'The area.\n\n```julia\narea(1)\n```\n"""')
    code = snapshot_of(tmp_path / "c", base, {"src/geo.jl": plain.replace("pi *", "2pi *")})
    assert [f.rule for f in verifiability_check(code).findings] == ["tests"]


def test_scripts_of_an_agent_skill_or_r_data_raw_need_no_test(tmp_path: Path) -> None:
    skill = {"skills/review/SKILL.md": "# Review\n", "skills/review/review.py": "x = 1\n"}
    edit = snapshot_of(tmp_path / "a", {**BASE, **skill}, {"skills/review/review.py": "x = 2\n"})
    assert verifiability_check(edit).findings == ()
    data = snapshot_of(tmp_path / "b", BASE, {"data-raw/storms.R": 'url <- "b"\n'})
    assert verifiability_check(data).findings == ()
    tested = {**skill, "skills/review/test_review.py": "def test_x():\n    assert True\n"}
    own = snapshot_of(tmp_path / "c", {**BASE, **tested}, {"skills/review/review.py": "x = 2\n"})
    assert [f.rule for f in verifiability_check(own).findings] == ["tests"]


ZIG = (
    'const std = @import("std");\n\npub fn len(s: []const u8) usize {\n    return s.len;\n}\n\n'
    'test "len" {\n    try std.testing.expectEqual(3, len("abc"));\n}\n'
)


def test_zig_source_needs_a_test_and_an_edited_test_block_is_one(tmp_path: Path) -> None:
    base = {**BASE, "src/str.zig": ZIG, "build.zig": "pub fn build() void {}\n"}
    code = ZIG.replace("return s.len;", "return s.len + 0;")
    untested = snapshot_of(tmp_path / "a", base, {"src/str.zig": code})
    assert [f.rule for f in verifiability_check(untested).findings] == ["tests"]
    both = code.replace('len("abc"));', 'len("abc"));\n    try std.testing.expect(len("") == 0);')
    tested = snapshot_of(tmp_path / "b", base, {"src/str.zig": both})
    assert verifiability_check(tested).findings == ()
    build = snapshot_of(tmp_path / "c", base, {"build.zig": "pub fn build() void { run(); }\n"})
    assert verifiability_check(build).findings == ()


@pytest.mark.parametrize(
    ("path", "counted"),
    [("deps/build.jl", True), ("deps/resolve.js", True), ("deps/pcre2/pcre2_compile.c", False)],
)
def test_only_a_library_folder_in_root_deps_is_vendored(
    tmp_path: Path, path: str, *, counted: bool
) -> None:
    snapshot = snapshot_of(tmp_path, {**BASE, path: "x = 1\n"}, {path: "x = 2\n"})
    assert [f.rule for f in verifiability_check(snapshot).findings] == (
        ["tests"] if counted else []
    )


SKILL = {"tests/test_app.py": "def test_a():\n    pass\n"}


@pytest.mark.parametrize(
    ("files", "path", "tool"),
    [
        (
            {"skills/review/SKILL.md": "# r\n", "skills/review/requirements.txt": "x\n"},
            "skills/review/review.py",
            True,
        ),
        ({"skills/pdf/SKILL.md": "# p\n"}, "skills/pdf/scripts/fill.py", True),
        (
            {"packages/cli/SKILL.md": "# c\n", "packages/cli/package.json": '{"name": "cli"}\n'},
            "packages/cli/index.ts",
            False,
        ),
        ({"agent/SKILL.md": "# a\n"}, "agent/app/main.py", False),
        ({"tool/SKILL.md": "# t\n"}, "tool/src/index.ts", False),
    ],
)
def test_a_skill_folder_holds_tools_unless_it_is_a_package_or_below_a_code_root(
    tmp_path: Path, files: dict[str, str], path: str, *, tool: bool
) -> None:
    base = {**BASE, **SKILL, **files, path: "x = 1\n"}
    snapshot = snapshot_of(tmp_path, base, {path: "x = 2\n"})
    assert [f.rule for f in verifiability_check(snapshot).findings] == ([] if tool else ["tests"])


def test_a_test_helper_neither_needs_a_test_nor_tests_other_code(tmp_path: Path) -> None:
    go = {"go.mod": "module m\n", "testutil/testutil.go": "package testutil\n\nvar A = 1\n"}
    base = {**BASE, **go, "app.go": "package m\n\nvar B = 1\n"}
    helper = {"testutil/testutil.go": "package testutil\n\nvar A = 2\n"}
    alone = snapshot_of(tmp_path / "a", base, helper)
    assert verifiability_check(alone).findings == ()
    beside = snapshot_of(tmp_path / "b", base, {**helper, "app.go": "package m\n\nvar B = 2\n"})
    assert [f.path for f in verifiability_check(beside).findings] == ["app.go"]


JL_COMMENT = (
    'module P\n\n# Long text goes in """ strings\n"""\n    f(x)\n\nDoc of f.\n"""\nf(x) = x + 1\n\n'
    '"""\n    g(x)\n"""\ng(x) = 2x\n\nend\n'
)
JL_ESCAPED = (
    '"""\n    q(s)\n\nQuote with `\\"""`.\n"""\nq(s) = s\n\nh(x) = x + 1\n\n'
    '"""\n    k()\n"""\nk() = 1\n'
)


@pytest.mark.parametrize(
    ("text", "old", "new", "code"),
    [
        (JL_COMMENT, "x + 1", "x + 2", True),
        (JL_COMMENT, "    g(x)", "    g(y)", False),
        (JL_ESCAPED, "x + 1", "x - 1", True),
        (JL_ESCAPED, "    k()", "    k(n)", False),
    ],
)
def test_quotes_in_a_julia_comment_or_escaped_pair_no_docstring(
    tmp_path: Path, text: str, old: str, new: str, *, code: bool
) -> None:
    base = {**BASE, "src/P.jl": text}
    snapshot = snapshot_of(tmp_path, base, {"src/P.jl": text.replace(old, new)})
    assert [f.rule for f in verifiability_check(snapshot).findings] == (["tests"] if code else [])
