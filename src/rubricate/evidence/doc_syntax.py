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
  quotes in a comment, and quotes escaped by a backslash, open and close none (the
  `jldoctest` blocks in docstrings are doc tests: `inline_tests`).
"""

from __future__ import annotations

import re

from rubricate.evidence.snapshot import DOUBLE_QUOTED

RUST_DOC = re.compile(r"^\s*#!?\[doc\b")
"""A Rust documentation attribute: what `///` and `//!` comments desugar to."""
TRIPLE = '"' * 3
CHAR_QUOTE = re.compile(r"'[\"#]'")
"""A Julia character literal of a quote or a hash (`'"'`, `'#'`): no string, no comment."""
ELIXIR_DOC = re.compile(r'^\s*@(?:module|type)?doc\s+(?:~[sS])?"{3}\s*$')
"""The opening line of an Elixir documentation heredoc; it closes at a line of three quotes."""
JULIA_DOC = re.compile(r'^\s*(?:@doc\s+)?(?:raw|doc)?"{3}')
"""The opening line of a Julia docstring: `\"""`, `@doc \"""`, `raw\"""`, `@doc raw\"""`."""
JULIA_GOES_ON = re.compile(r"(?:[([{,=+\-*/\\^&|<>~:!]|\b(?:return|in|isa|where))\s*$")
"""The end of a line whose expression goes on below it (a string there is a value)."""
JULIA_ENDS_BLOCK = re.compile(r"^\s*(?:end\b|[)\]}]|$)")
"""A line that ends a block or an expression: a string above it is no docstring."""


def rust_doc_lines(lines: list[str]) -> set[int]:
    """Lines of Rust doc attributes, from `#[doc` to the `]` that closes the attribute; a line
    with code after that `]` (`#[doc(hidden)] pub fn f(`) is code."""
    found: set[int] = set()
    depth = 0
    for number, line in enumerate(lines, 1):
        if depth <= 0 and not RUST_DOC.match(line):
            continue
        bare = DOUBLE_QUOTED.sub('""', line)
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
    Every triple-quoted string is followed to its close (`julia_triple_strings`), so the
    closing quotes of a value (`const NAME = \"""` ... `\"""`) never open a docstring."""
    found: set[int] = set()
    for start, column, close in julia_triple_strings(lines):
        if close is None:
            return found  # a string that never closes: the file does not parse
        opener = JULIA_DOC.match(lines[start])
        after = lines[close + 1] if close + 1 < len(lines) else ""
        if (
            opener is not None
            and opener.end() == column + 3
            and _starts_statement(lines, start)
            and not JULIA_ENDS_BLOCK.match(after)
        ):
            found.update(range(start + 1, close + 2))
    return found


def julia_triple_strings(lines: list[str]) -> list[tuple[int, int, int | None]]:
    """The triple-quoted strings of Julia code, as (opening line index, column of the quotes,
    closing line index or None when it never closes). Quotes in a `#` comment, a nested
    `#= ... =#` comment, a one-quote string or a character literal open none, and a backslash
    escapes the character after it inside a string (an escaped quote closes nothing)."""
    found: list[tuple[int, int, int | None]] = []
    comment = 0  # depth of `#= ... =#`
    opened: tuple[int, int] | None = None  # the open triple-quoted string
    for index, line in enumerate(lines):
        at = 0
        while at < len(line):
            if opened is not None:
                if line[at] == "\\":
                    at += 2
                    continue
                if line.startswith(TRIPLE, at):
                    found.append((*opened, index))
                    opened, at = None, at + 3
                    continue
            elif comment:
                comment += line.startswith("#=", at) - line.startswith("=#", at)
                at += 2 if line.startswith(("#=", "=#"), at) else 1
                continue
            elif line.startswith("#=", at):
                comment, at = 1, at + 2
                continue
            elif line[at] == "#":
                break
            elif line.startswith(TRIPLE, at):
                opened, at = (index, at), at + 3
                continue
            elif CHAR_QUOTE.match(line, at):
                at += 3
                continue
            elif line[at] == '"':
                string = DOUBLE_QUOTED.match(line, at)
                at = string.end() if string else len(line)
                continue
            at += 1
    if opened is not None:
        found.append((*opened, None))
    return found


def _starts_statement(lines: list[str], index: int) -> bool:
    """True when the line before `index` (blank lines and `#` comments aside) ends no
    unfinished expression."""
    for line in reversed(lines[:index]):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return JULIA_GOES_ON.search(stripped) is None
    return True
