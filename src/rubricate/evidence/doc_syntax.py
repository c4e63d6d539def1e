"""Documentation that a language writes as code rather than as comments (pure: text in).

Each function takes a file's head lines and returns the 1-based numbers of its documentation
lines:
- Rust `#[doc ...]` and `#![doc ...]` attributes (`///` is sugar for them), over every line
  until the attribute's own `]` closes it (a line with code after that `]` is code);
- Elixir `@moduledoc`, `@doc` and `@typedoc` heredocs (`@doc \"""` ... `\"""`, `~S\"""` too),
  once they close; a heredoc assigned or returned is a string of code;
- Julia docstrings: a triple-quoted string (`raw`, `doc` or `@doc` before it too) that starts a
  statement of its own (the line before it ends no unfinished expression: no open bracket,
  comma, `=` or operator) and stands before the object it documents (the line after it is
  neither blank nor `end` or a closing bracket: a string last in a block is a return value);
  the `jldoctest` blocks in them are the doc tests Documenter runs.
"""

from __future__ import annotations

import re

RUST_DOC = re.compile(r"^\s*#!?\[doc\b")
"""A Rust documentation attribute: what `///` and `//!` comments desugar to."""
RUST_STRING = re.compile(r'"(?:\\.|[^"\\])*"')
ELIXIR_DOC = re.compile(r'^\s*@(?:module|type)?doc\s+(?:~[sS])?"{3}\s*$')
"""The opening line of an Elixir documentation heredoc; it closes at a line of three quotes."""
JULIA_DOC = re.compile(r'^\s*(?:@doc\s+)?(?:raw|doc)?"{3}')
"""The opening line of a Julia docstring: `\"""`, `@doc \"""`, `raw\"""`, `@doc raw\"""`."""
JULIA_GOES_ON = re.compile(r"(?:[([{,=+\-*/\\^&|<>~:!]|\b(?:return|in|isa|where))\s*$")
"""The end of a line whose expression goes on below it (a string there is a value)."""
JULIA_ENDS_BLOCK = re.compile(r"^\s*(?:end\b|[)\]}]|$)")
"""A line that ends a block or an expression: a string above it is no docstring."""
JULIA_DOCTEST = re.compile(r"^\s*```\s*jldoctest\b")
FENCE_CLOSE = re.compile(r"^\s*```\s*$")


def rust_doc_lines(lines: list[str]) -> set[int]:
    """Lines of Rust doc attributes, from `#[doc` to the `]` that closes the attribute; a line
    with code after that `]` (`#[doc(hidden)] pub fn f(`) is code."""
    found: set[int] = set()
    depth = 0
    for number, line in enumerate(lines, 1):
        if depth <= 0 and not RUST_DOC.match(line):
            continue
        bare = RUST_STRING.sub('""', line)
        rest = ""
        for at, char in enumerate(bare):
            depth += (char in "[(") - (char in "])")
            if depth <= 0 and char == "]":
                rest = bare[at + 1 :].strip()
                break
        if not rest or rest.startswith("//"):
            found.add(number)
    return found


def elixir_doc_lines(lines: list[str]) -> set[int]:
    """Lines of Elixir documentation heredocs, opener and closer included; a heredoc that
    never closes is no documentation (the file does not compile)."""
    found: set[int] = set()
    start = 0
    for number, line in enumerate(lines, 1):
        if start and line.lstrip().startswith('"' * 3):
            found.update(range(start, number + 1))
            start = 0
        elif not start and ELIXIR_DOC.match(line):
            start = number
    return found


def julia_doc_lines(lines: list[str]) -> set[int]:
    """Lines of Julia docstrings, opener and closer included (see the module's docstring).
    Every triple-quoted string is followed to its close, so the closing quotes of a value
    (`const NAME = \"""` ... `\"""`) never open a docstring."""
    found: set[int] = set()
    number = 0
    while number < len(lines):
        line = lines[number]
        at = line.find('"' * 3)
        if at < 0:
            number += 1
            continue
        close = _julia_close(lines, number, at + 3)
        if close is None:
            return found  # a string that never closes: the file does not parse
        opener = JULIA_DOC.match(line)
        after = lines[close + 1] if close + 1 < len(lines) else ""
        if (
            opener is not None
            and opener.end() == at + 3
            and _starts_statement(lines, number)
            and not JULIA_ENDS_BLOCK.match(after)
        ):
            found.update(range(number + 1, close + 2))
        number = close + 1
    return found


def _julia_close(lines: list[str], start: int, column: int) -> int | None:
    """The index of the line that closes the triple-quoted string opened before `column` of
    line `start` (the same line when it closes there), or None."""
    if '"' * 3 in lines[start][column:]:
        return start
    return next((i for i in range(start + 1, len(lines)) if '"' * 3 in lines[i]), None)


def _starts_statement(lines: list[str], index: int) -> bool:
    """True when the line before `index` (blank lines and `#` comments aside) ends no
    unfinished expression."""
    for line in reversed(lines[:index]):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return JULIA_GOES_ON.search(stripped) is None
    return True


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
