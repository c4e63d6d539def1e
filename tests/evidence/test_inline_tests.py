"""Test code written inside source files: Rust doc tests, Zig test blocks, Julia doc tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubricate.evidence.inline_tests import (
    julia_doctest_lines,
    rust_doc_test_lines,
    zig_test_lines,
)
from rubricate.evidence.verifiability import verifiability_check
from tests.evidence.gitrepo import snapshot_of

JL = (
    '"""\n'  # 1
    "    area(r)\n"  # 2
    "\n"  # 3
    "```jldoctest\n"  # 4
    "julia> area(1)\n"  # 5
    "3.14\n"  # 6
    "```\n"  # 7
    '"""\n'  # 8
    "area(r) = pi * r^2\n"  # 9
    'msg = """\n'  # 10
    "```jldoctest\n"  # 11
    "julia> 1\n"  # 12
    "```\n"  # 13
    '"""\n'  # 14
)


def test_julia_doc_tests_are_the_jldoctest_blocks_of_docstrings() -> None:
    assert sorted(julia_doctest_lines(JL.splitlines())) == [4, 5, 6, 7]


def test_rust_doc_tests_are_the_blocks_rustdoc_runs() -> None:
    text = "/// ```\n/// f();\n/// ```\n/// ```text\n/// out\n/// ```\nfn f() {}\n"
    assert sorted(rust_doc_test_lines(text)) == [1, 2]


ZIG = (
    'const std = @import("std");\n'  # 1
    'test "placeholder" {}\n'  # 2
    "pub fn add(a: i32, b: i32) i32 {\n"  # 3
    "    return a + b;\n"  # 4
    "}\n"  # 5
    "test { std.testing.refAllDecls(@This()); }\n"  # 6
    'test "brace in a string \\"{\\"" { // {\n'  # 7
    '    try std.testing.expect(true); // "}"\n'  # 8
    "}\n"  # 9
)


def test_a_zig_test_block_closing_on_its_opening_line_is_that_line_only() -> None:
    assert sorted(zig_test_lines(ZIG)) == [2, 6, 7, 8, 9]


BASE = {"README.md": "# p\n", "build.zig": "pub fn build() void {}\n", "src/m.zig": ZIG}


@pytest.mark.parametrize(
    ("old", "new", "tested"),
    [
        ("a + b", "a +% b", False),
        ("expect(true)", "expect(1 == 1)", True),
    ],
)
def test_code_below_a_one_line_zig_test_block_is_no_test(
    tmp_path: Path, old: str, new: str, tested: bool
) -> None:
    snapshot = snapshot_of(tmp_path, BASE, {"src/m.zig": ZIG.replace(old, new)})
    assert [f.rule for f in verifiability_check(snapshot).findings] == ([] if tested else ["tests"])
