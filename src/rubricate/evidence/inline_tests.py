"""Which added lines of a source file are test code written inside it (pure: text in).

- Rust: a test attribute (`#[test]`, `#[cfg(test)]`, `#[tokio::test]`) on an added line, or a
  line of a doc comment's code block that rustdoc runs (a fence with no language, or only the
  tags `rust`, `should_panic`, `no_run`, `compile_fail`, `edition20xx`), fences read over the
  whole head text;
- Zig: a line of a `test` block, from its opening line to the `}` at the opener's indentation
  (as `zig fmt` writes them); a block whose braces balance on its opening line
  (`test "x" {}`) is that line only;
- Julia: a line of a docstring's `jldoctest` block, which Documenter runs;
- Python and Elixir: a doctest prompt (`>>>`, `iex>`) on an added line inside the file's
  docstrings or documentation heredocs (whether a runner such as `pytest --doctest-modules`
  or ExUnit's `doctest` runs them is not checked).
"""

from __future__ import annotations

import re

from rubricate.evidence.code_lines import documentation_lines
from rubricate.evidence.doc_syntax import julia_doc_lines
from rubricate.evidence.file_kinds import extension
from rubricate.evidence.snapshot import DOUBLE_QUOTED, FileChange, text_lines

RUST_TEST = re.compile(r"#\[(?:cfg\()?(?:[\w:]+::)?test\b")
"""A Rust test attribute (`#[test]`, `#[cfg(test)]`, `#[tokio::test]`) on an added line."""
RUST_DOC_LINE = re.compile(r"^\s*//[/!]")
DOC_FENCE = re.compile(r"^\s*//[/!]\s*```\s*([\w,\s-]*?)\s*$")
DOC_TEST_TAGS = frozenset({"rust", "should_panic", "no_run", "compile_fail"})
"""A Rust doc comment's code block is a doc test when its fence opens with no language or with
these tags (or `edition20xx`); `ignore`, `text` and other languages are not run."""
ZIG_TEST = re.compile(rf"^\s*test\s*(?:{DOUBLE_QUOTED.pattern}|[A-Za-z_]\w*)?\s*\{{")
"""The opening line of a Zig test block (`test "parses" {`, `test decl {`, `test {`)."""
JULIA_DOCTEST = re.compile(r"^\s*```\s*jldoctest\b")
FENCE_CLOSE = re.compile(r"^\s*```\s*$")
PYTHON_PROMPT = re.compile(r"^\s*>>>\s")
ELIXIR_PROMPT = re.compile(r"^\s*iex(?:\(\d+\))?>\s")
DOCTEST_PROMPTS = {
    "py": PYTHON_PROMPT,
    "pyi": PYTHON_PROMPT,
    "ex": ELIXIR_PROMPT,
    "exs": ELIXIR_PROMPT,
}
"""A doctest prompt, by the language whose doctests use it."""


def adds_inline_test(change: FileChange) -> bool:
    """True when an added line of a source file is test code (see the module's docstring)."""
    ext = extension(change.path)
    added = change.added
    if ext == "rs":
        runs = rust_doc_test_lines(change.text or "")
        return any(RUST_TEST.search(text) or number in runs for number, text in added)
    if ext == "zig":
        blocks = zig_test_lines(change.text or "")
        return any(number in blocks for number, _ in added)
    if ext == "jl":
        runs = julia_doctest_lines(text_lines(change.text or ""))
        return any(number in runs for number, _ in added)
    prompt = DOCTEST_PROMPTS.get(ext)
    if prompt is None or not any(prompt.match(text) for _, text in added):
        return False
    docs = documentation_lines(change)
    return any(number in docs and prompt.match(text) for number, text in added)


def rust_doc_test_lines(text: str) -> frozenset[int]:
    """Head lines inside the Rust doc comment code blocks that rustdoc runs, the opening fence
    included: a fence opens a block, the next one closes it, and a line that is not a doc
    comment ends the comment (and any block in it)."""
    found: set[int] = set()
    runs: bool | None = None  # None outside a block; else whether the open block runs
    for number, line in enumerate(text_lines(text), 1):
        if not RUST_DOC_LINE.match(line):
            runs = None
            continue
        fence = DOC_FENCE.match(line)
        if fence and runs is None:
            tags = {t.strip() for t in fence.group(1).split(",") if t.strip()}
            runs = all(t in DOC_TEST_TAGS or t.startswith("edition") for t in tags)
        elif fence:
            runs = None
            continue
        if runs:
            found.add(number)
    return frozenset(found)


def zig_test_lines(text: str) -> frozenset[int]:
    """Head lines of Zig test blocks, from the opening line to the `}` that closes it at the
    opener's indentation; an opener whose braces balance (strings and a `//` comment masked)
    closes on its own line."""
    found: set[int] = set()
    closer = ""
    start = 0
    for number, line in enumerate(text_lines(text), 1):
        if start and line.rstrip() == closer:
            found.update(range(start, number + 1))
            start = 0
        elif not start and ZIG_TEST.match(line):
            bare = DOUBLE_QUOTED.sub('""', line).split("//", 1)[0]
            if bare.count("{") == bare.count("}"):
                found.add(number)
            else:
                start, closer = number, line[: len(line) - len(line.lstrip())] + "}"
    return frozenset(found)


def julia_doctest_lines(lines: list[str]) -> frozenset[int]:
    """Lines inside the `jldoctest` blocks of Julia docstrings, fences included."""
    docs = julia_doc_lines(lines)
    found: set[int] = set()
    start = 0
    for number, line in enumerate(lines, 1):
        if number not in docs:
            start = 0
        elif start and FENCE_CLOSE.match(line):
            found.update(range(start, number + 1))
            start = 0
        elif not start and JULIA_DOCTEST.match(line):
            start = number
    return frozenset(found)
