"""Each finding kind is made precise by a rule; fixtures are real git repositories built here."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubricate.evidence.completeness import completeness_check
from rubricate.evidence.results import CheckResult
from rubricate.evidence.spec import parse_spec
from rubricate.evidence.verifiability import verifiability_check

from .gitrepo import FileValue, snapshot_of

BASE: dict[str, FileValue] = {"README.md": "# p\n", "src/app.py": '"""App."""\n\nx = 1\n'}
UNTESTED = "without a test change"


def completeness(
    tmp_path: Path, head: dict[str, FileValue], base: dict[str, FileValue] | None = None
) -> CheckResult:
    snapshot = snapshot_of(tmp_path, base or BASE, head)
    return completeness_check(snapshot, parse_spec(""))


def verifiability(
    tmp_path: Path,
    head: dict[str, FileValue],
    base: dict[str, FileValue] | None = None,
    body: str = "",
) -> CheckResult:
    return verifiability_check(snapshot_of(tmp_path, base or BASE, head, body=body))


def messages(result: CheckResult) -> list[str]:
    return [f.message for f in result.findings]


@pytest.mark.parametrize(
    ("path", "text", "marked"),
    [
        ("src/jobs.py", "assert status == jobs.Status.TODO\n", False),
        ("src/jobs.py", "TODO = 'todo'\n", False),
        ("src/jobs.py", "states = [State.FIXME, XXX_LIMIT]\n", False),
        ("src/jobs.py", "x = 1  # TODO: handle None\n", True),
        ("src/jobs.py", 'x = "# not a comment TODO"\n', False),
        ("src/jobs.py", 'def f():\n    """Run it.\n\n    TODO: stream it.\n    """\n', True),
        ("src/main.go", "return nil // FIXME(ana): retry\n", True),
        ("src/main.go", "/*\n * XXX: racy\n */\nvar x = 1\n", True),
        ("src/main.go", "s := Status.TODO\n", False),
        ("src/tree.go", "// (e.g., /PREFIX/XXX should resolve to /prefix/xxx)\n", False),
        ("src/tree.go", "// call XXX-XXXX for help\n", False),
        ("src/a.go", "// TODO/FIXME: handle errors\n", True),
        ("src/a.go", "// FIXME-later: racy\n", True),
        ("src/a.go", "// TODO-1234 wire the retry\n", True),
        ("src/a.go", "// XXX-racy: no lock\n", True),
        ("src/a.go", "// FIXME/TODO handle nil\n", True),
        ("src/a.go", "// see TODO.md for the plan\n", False),
        ("src/tree_a.go", 'f("/src/*filepath")\ny := "XXX: not a comment"\n', False),
        ("src/tree_b.go", 'f("/src/*filepath")\n/* XXX: racy */\n', True),
        ("src/lib.rs", "let lifetime: &'a str = s; // TODO later\n", True),
        ("docs/guide.md", "TODO: write this section\n", True),
        ("docs/guide.md", "- TODO describe the flags\n", True),
        ("docs/guide.md", "The TODO list app shows tasks.\n", False),
        ("docs/guide.md", "- Unsure? Write `[Docs]() <!-- TODO: add link -->` there.\n", False),
        ("docs/guide.md", "- Write ``a <!-- TODO: b -->`` there.\n", False),
        ("docs/guide.md", "- Write `# TODO: fix` as `# FIXME` in `x.py`.\n", False),
        ("docs/guide.md", "Don`t ship yet. TODO: document the `--force` flag.\n", True),
        ("docs/guide.md", "- [ ] `TODO: benchmark on ARM`\n", True),
        ("docs/guide.md", "- Unsure? Write `[Docs]() <!-- TODO: add link -->` or ` there.\n", True),
        ("docs/guide.md", "- `x` and TODO: add the `y` link.\n", True),
        ("docs/guide.md", "[Docs]() <!-- TODO: add link -->\n", True),
    ],
)
def test_a_todo_is_a_comment_marker_not_an_identifier(
    tmp_path: Path, path: str, text: str, *, marked: bool
) -> None:
    found = [m for m in messages(completeness(tmp_path, {path: text})) if "marker" in m]
    assert bool(found) is marked, found


def test_only_lines_the_change_adds_and_not_lines_it_moves(tmp_path: Path) -> None:
    base = {**BASE, "src/a.py": "def old():\n    return 1  # TODO: cache\n"}
    head = {
        "src/a.py": "def old():\n    return 2\n",
        "src/b.py": "def moved():\n    return 1  # TODO: cache\n",
    }
    assert messages(completeness(tmp_path, head, base)) == []


def test_markers_in_test_files_are_notes(tmp_path: Path) -> None:
    result = completeness(tmp_path, {"tests/test_a.py": "def test_a():\n    x = 1  # TODO\n"})
    assert [(f.kind, f.rule) for f in result.findings] == [("note", "todo-marker")]
    assert result.value == pytest.approx(0.9)


EMPTY_BODIES = '''"""Interfaces and hooks."""
from abc import ABC, ABCMeta, abstractmethod
from typing import Protocol, overload

import click


class Reader(Protocol):
    def read(self) -> bytes: ...


class Base(ABC):
    @abstractmethod
    def run(self) -> None:
        pass


class Meta(metaclass=ABCMeta):
    def hook(self) -> None:
        pass


@overload
def parse(x: int) -> int: ...
@overload
def parse(x: str) -> str: ...
def parse(x):
    return x


@click.command()
def cli():
    pass


class Handler:
    def log_message(self, *args):
        pass


def stub():
    pass
'''


def test_empty_bodies_count_only_where_a_body_is_expected(tmp_path: Path) -> None:
    result = completeness(tmp_path, {"src/iface.py": EMPTY_BODIES})
    assert [(f.line, f.message, f.kind) for f in result.findings] == [
        (
            37,
            "method log_message() has an empty body (a hook or no-op override?)",
            "note",
        ),
        (41, "function stub() has an empty body", "certain"),
    ]


def test_empty_bodies_in_test_files_are_not_findings(tmp_path: Path) -> None:
    fake = (
        "import click\n\nclass FakeProcess:\n    def terminate(self):\n        pass\n\n"
        "def test_cli(runner):\n    @click.command()\n    def cli():\n        pass\n\n"
        "    def callback():\n        pass\n"
    )
    assert messages(completeness(tmp_path, {"tests/test_cli.py": fake})) == []


def test_not_implemented_in_a_method_is_the_abstract_idiom(tmp_path: Path) -> None:
    code = (
        "class Base:\n    def run(self):\n        raise NotImplementedError\n\n"
        "def later():\n    raise NotImplementedError('soon')\n\n"
        "try:\n    pass\nexcept NotImplementedError:\n    x = 1\n"
    )
    result = completeness(tmp_path, {"src/base.py": code})
    assert [(f.line, f.kind) for f in result.findings] == [(6, "certain")]


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        ("This is a placeholder section for the new API.\n", False),
        ("// placeholder database\n", False),
        ('<input placeholder="name">\n', False),
        ("Lorem ipsum dolor sit amet.\n", True),
        ("Contact: [insert email here]\n", True),
        ("Release date: <TBD>\n", True),
    ],
)
def test_placeholder_as_a_word_is_not_placeholder_text(
    tmp_path: Path, text: str, *, flagged: bool
) -> None:
    result = completeness(tmp_path, {"docs/page.md": text})
    assert [f.rule for f in result.findings] == (["placeholder-text"] if flagged else [])
    assert all(f.kind == "note" for f in result.findings)


PROSE = "".join(f"Changed behaviour number {i} of the parser.\n" for i in range(12))


@pytest.mark.parametrize(
    "reference",
    [
        "- Fix the parser. {issue}`1234`\n",
        "- Fix the parser. {pr}`77`\n",
        "* Fix the parser. :issue:`1234`\n",
        "- Fix the parser (#1234).\n",
        "- Fix the parser, GH-1234.\n",
        "- Fix the parser, see pallets/click#1234.\n",
        "- Fix the parser, see `the docs <https://example.org/x>`_.\n",
        "- Fix the parser, see [the docs][docs].\n",
    ],
)
def test_changelog_roles_and_issue_references_are_links(tmp_path: Path, reference: str) -> None:
    result = verifiability(tmp_path, {"CHANGES.rst": PROSE + reference})
    assert result.evidence[0] == "sources: links in CHANGES.rst"


def test_prose_without_any_reference_is_a_note(tmp_path: Path) -> None:
    result = verifiability(tmp_path / "a", {"docs/new.md": PROSE})
    assert [(f.rule, f.kind) for f in result.findings] == [("sources", "note")]
    own = snapshot_of(tmp_path / "b", BASE, {"docs/new.md": PROSE})
    titled = verifiability_check(own.__class__(**{**own.__dict__, "title": "Docs (#12)"}))
    assert [f.rule for f in titled.findings] == ["sources"]  # a PR's own number is no source
    output = verifiability(tmp_path / "c", {"listings/ch1/output.txt": PROSE})
    assert output.findings == ()  # plain .txt: program output as often as prose


@pytest.mark.parametrize(
    "head",
    [
        {"src/app.py": '"""App, documented."""\n\nx = 1\n'},
        {"src/app.py": '"""App."""\n\n# the answer\nx = 1\n'},
        {"src/app.py": '"""App."""\n\n\nx = 1\n'},
    ],
)
def test_docstring_and_comment_only_edits_are_not_source_changes(
    tmp_path: Path, head: dict[str, FileValue]
) -> None:
    result = verifiability(tmp_path, head)
    assert result.findings == ()
    assert "only comments, docstrings or blank lines change in src/app.py" in result.evidence[-2]


def test_comment_only_edits_in_other_languages(tmp_path: Path) -> None:
    base = {**BASE, "src/lib.rs": "/// Adds.\npub fn add() {}\n", "src/m.go": "// M.\nvar x = 1\n"}
    head = {
        "src/lib.rs": "/// Adds two numbers.\npub fn add() {}\n",
        "src/m.go": "// Mm.\nvar x = 1\n",
    }
    assert verifiability(tmp_path / "a", head, base).findings == ()
    code = {"src/m.go": "// M.\nvar x = 2\n"}
    assert UNTESTED in messages(verifiability(tmp_path / "b", code, base))[0]


def test_test_code_inside_a_source_file_is_a_test_change(tmp_path: Path) -> None:
    base = {**BASE, "src/lib.rs": "pub fn add(a: i32) -> i32 { a }\n"}
    head = {
        "src/lib.rs": "pub fn add(a: i32) -> i32 { a + 1 }\n\n#[cfg(test)]\nmod tests {\n"
        "    #[test]\n    fn adds() { assert_eq!(super::add(1), 2); }\n}\n"
    }
    result = verifiability(tmp_path, head, base)
    assert result.findings == ()
    assert result.evidence[0] == "tests: 1 test file for 1 source file: src/lib.rs"


@pytest.mark.parametrize(
    ("first_line", "generated"),
    [
        ("# File generated from our OpenAPI spec by Stainless. See CONTRIBUTING.md.\n", True),
        ("// Code generated by protoc-gen-go. DO NOT EDIT.\n", True),
        ("# This file was automatically generated by gen.py\n", True),
        ("# @generated by a tool\n", True),
        ("# auto-generated: do not edit\n", True),
        ("# This file documents how the generated client is used.\n", False),
    ],
)
def test_generated_files_are_recognised_by_their_own_markers(
    tmp_path: Path, first_line: str, *, generated: bool
) -> None:
    text = first_line + "def make():\n    pass  # TODO: template\n"
    result = completeness(tmp_path, {"src/client.py": text})
    assert (result.findings == ()) is generated


def test_randomness_in_a_document_snippet_is_not_code(tmp_path: Path) -> None:
    snippet = "```rust\nlet secret = rand::thread_rng().gen_range(1..=100);\n```\n"
    assert verifiability(tmp_path, {"book/ch02.md": snippet}).findings == ()


def test_a_manifest_without_a_kept_lockfile_is_not_flagged(tmp_path: Path) -> None:
    manifest = '{\n  "name": "x",\n  "dependencies": {\n    "a": "^1.0.0"\n  }\n}\n'
    bumped = manifest.replace("^1.0.0", "^2.0.0")
    free = verifiability(
        tmp_path / "a", {"package.json": bumped}, {**BASE, "package.json": manifest}
    )
    assert free.findings == ()
    kept = {**BASE, "package.json": manifest, "package-lock.json": "{}\n"}
    stale = verifiability(tmp_path / "b", {"package.json": bumped}, kept)
    assert [(f.rule, f.kind) for f in stale.findings] == [("pinned-dependencies", "note")]
    member = {**kept, "packages/a/package.json": manifest}
    workspace = verifiability(tmp_path / "c", {"packages/a/package.json": bumped}, member)
    assert [f.rule for f in workspace.findings] == ["pinned-dependencies"]
    hidden = {**kept, ".github/tool/package.json": manifest}
    tool = verifiability(tmp_path / "d", {".github/tool/package.json": bumped}, hidden)
    assert tool.findings == ()


DOCUMENTED = 'def f():\n    """Do it.\n\n    Old remark.\n    """\n    return 1\n'


def test_lines_removed_inside_a_docstring_are_not_code_but_removed_code_is(
    tmp_path: Path,
) -> None:
    base = {**BASE, "src/d.py": DOCUMENTED}
    trimmed = {"src/d.py": 'def f():\n    """Do it.\n    """\n    return 1\n'}
    assert verifiability(tmp_path / "a", trimmed, base).findings == ()
    gutted = {"src/d.py": 'def f():\n    """Do it.\n\n    Old remark.\n    """\n'}
    assert UNTESTED in messages(verifiability(tmp_path / "b", gutted, base))[0]
