"""Which changed lines are code, and which are comments or docstrings (pure: text in).

The rules, by file extension (`comment_style`):
- line comments start with `#` (Python, Ruby, shell, R, YAML, TOML, ...), `//` (the C family,
  JavaScript/TypeScript, Go, Rust, Java, Kotlin, Swift, PHP, Scala, Dart), or `--` (SQL,
  Lua, Haskell); block comments are `/* ... */` (the `//` family, CSS) and `<!-- ... -->`
  (HTML, XML, Markdown);
- in Python, docstrings (the first string statement of a module, class or function, read
  with `ast`) count as comments;
- a head line is not code when it is blank, is a line comment, or lies inside a block comment
  or a docstring (`non_code_lines`);
- an added line is code unless it is such a line; a removed line is not code when it is blank
  or starts as a comment does, when the lines added in its place are all non-code, or when
  it was removed from inside a comment or docstring (the head lines on both sides are); code
  replaced by line comments or blank lines only (commented out) is a code change;
- Rust doc attributes, Elixir doc heredocs and Julia docstrings are documentation, as Python
  docstrings are (`doc_syntax` says where each begins and ends);
- a stretch that only removes a whole Python docstring (one string statement at the top of the
  module or directly below a `def` or `class` header) removes no code; a string removed
  elsewhere is a value or a statement of code;
- a file changes code (`changes_code`) when one of its added or removed lines is code, unless
  a stretch of the diff replaces code lines by the same code: equal once trailing comments are
  dropped, spaces collapsed (Python keeps its indentation) and quoted version numbers masked
  on a line that sets a version (`__version__ = "3.3.1"`): a comment edit at the end of a
  line, a reformat, a version bump;
- strings are read per line, with the quotes of the language (`quotes_of`), so a comment
  opener inside one (`"/src/*path"`, `'https://x'`) opens no comment.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from rubricate.evidence.doc_syntax import elixir_doc_lines, julia_doc_lines, rust_doc_lines
from rubricate.evidence.file_kinds import extension, words
from rubricate.evidence.snapshot import FileChange, text_lines


@dataclass(frozen=True)
class CommentStyle:
    """How a language writes comments."""

    line: tuple[str, ...]
    block: tuple[tuple[str, str], ...] = ()


HASH = CommentStyle(("#",))
SLASH = CommentStyle(("//",), (("/*", "*/"),))
DASH = CommentStyle(("--",), (("/*", "*/"),))
MARKUP = CommentStyle((), (("<!--", "-->"),))
STYLES: dict[str, CommentStyle] = {
    **dict.fromkeys(
        words("py pyi rb sh bash zsh r jl ex exs pl yml yaml toml cfg conf nix tf cmake mk"), HASH
    ),
    **dict.fromkeys(
        words(
            "js jsx mjs cjs ts tsx go rs java kt kts c h cc cpp cxx hpp cs swift php scala dart"
            " groovy gradle proto zig vue svelte"
        ),
        SLASH,
    ),
    **dict.fromkeys(words("css scss less"), CommentStyle((), (("/*", "*/"),))),
    **dict.fromkeys(words("sql lua hs"), DASH),
    **dict.fromkeys(words("html htm xml md markdown svg"), MARKUP),
}


QUOTED_VERSION = re.compile(r"(?<=[\"'])v?\d+\.\d[-+.0-9A-Za-z]*(?=[\"'])")
"""A version number that is a whole string literal: `"0.3.2"`, `'1.0.0-beta.2'`."""
VERSION_LINE = re.compile(
    r"\s*(?:[\w$]+\s+)*[\"']?[\w$.-]*version[\w$-]*[\"']?\s*(?::\s*&?[\w']+\s*)?[:=]\s*[\"']",
    re.IGNORECASE,
)
"""A line that sets a version: `__version__ = "0.3.2"`, `"version": "1.2.0",`,
`pub const VERSION: &str = "1.0";` (not `connect(version="2.1")`, a call's argument)."""


DOCSTRING_SYNTAX: dict[str, Callable[[list[str]], set[int]]] = {
    "ex": elixir_doc_lines,
    "exs": elixir_doc_lines,
    "jl": julia_doc_lines,
}
"""Docstrings a language writes as strings of code (`doc_syntax`), by extension: where doctests
live, as in Python's docstrings."""
DOC_SYNTAX: dict[str, Callable[[list[str]], set[int]]] = {"rs": rust_doc_lines, **DOCSTRING_SYNTAX}
"""Documentation a language writes as code (`doc_syntax`), by extension."""
PYTHON_EXTS = ("py", "pyi")


def comment_style(path: str) -> CommentStyle | None:
    """The comment syntax of a file, by extension (None when unknown)."""
    return STYLES.get(extension(path))


def non_code_lines(change: FileChange) -> frozenset[int]:
    """Head line numbers (1-based) that are blank, comments, or docstrings."""
    text = change.text
    style = comment_style(change.path)
    if text is None or style is None:
        return frozenset()
    return _non_code(text, style, extension(change.path))


@lru_cache(maxsize=64)
def _non_code(text: str, style: CommentStyle, ext: str) -> frozenset[int]:
    lines = text_lines(text)
    found = {n for n, line in enumerate(lines, 1) if is_comment_text(line, style)}
    quotes = quotes_of(ext)
    for opener, closer in style.block:
        found.update(_block_lines(text, opener, closer, quotes))
    if ext in PYTHON_EXTS:
        found.update(docstring_lines(text))
    if ext in DOC_SYNTAX:
        found.update(DOC_SYNTAX[ext](lines))
    return frozenset(found)


def documentation_lines(change: FileChange) -> frozenset[int]:
    """Head line numbers of a file's docstrings (Python, Julia) or documentation heredocs
    (Elixir), where doctests live; empty for other languages."""
    ext = extension(change.path)
    if change.text is None:
        return frozenset()
    if ext in PYTHON_EXTS:
        return frozenset(docstring_lines(change.text))
    if ext in DOCSTRING_SYNTAX:
        return frozenset(DOCSTRING_SYNTAX[ext](text_lines(change.text)))
    return frozenset()


def is_comment_text(line: str, style: CommentStyle) -> bool:
    """True when a line is blank or, by its own text, a comment line."""
    stripped = line.strip()
    if not stripped:
        return True
    if style.line and stripped.startswith(style.line):
        return True
    return any(stripped.startswith((opener, closer)) for opener, closer in style.block) or (
        bool(style.block) and stripped.startswith("*")
    )


def quotes_of(ext: str) -> str:
    """The string quotes of a language, for telling comment openers from string text: `"`,
    `'` and backticks, without `'` where it marks a lifetime or a prime (Rust, Haskell)."""
    return '"`' if ext in ("rs", "hs") else "\"'`"


def _block_lines(text: str, opener: str, closer: str, quotes: str) -> set[int]:
    """Lines inside block comments; an opener inside a string literal (`"/src/*path"`) opens
    none (strings are read on the opener's line)."""
    found: set[int] = set()
    start = _comment_start(text, opener, quotes)
    while start is not None:
        end = text.find(closer, start + len(opener))
        end = len(text) if end < 0 else end + len(closer)
        first = text.count("\n", 0, start) + 1
        last = first + text.count("\n", start, end)
        before = text[text.rfind("\n", 0, start) + 1 : start]
        after = text[end : (text.find("\n", end) + 1 or len(text) + 1) - 1]
        whole = range(first + (1 if before.strip() else 0), last + (0 if after.strip() else 1))
        found.update(whole)
        start = _comment_start(text, opener, quotes, end)
    return found


DEFINITIONS = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


@lru_cache(maxsize=64)
def python_tree(text: str) -> ast.Module | None:
    """The parsed module, or None when it does not parse."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def docstring_lines(text: str) -> set[int]:
    """Line numbers of a Python module's docstrings (module, classes, functions)."""
    tree = python_tree(text)
    if tree is None:
        return set()
    found: set[int] = set()
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        first = body[0] if body else None
        if (
            isinstance(node, (ast.Module, *DEFINITIONS))
            and isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        ):
            found.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
        stack.extend(n for n in body if isinstance(n, DEFINITIONS))
    return found


@dataclass(frozen=True)
class Run:
    """One stretch of a hunk where lines are removed and/or added."""

    removed: tuple[str, ...]
    added: tuple[int, ...]
    before: int
    """The head line just before the run (0 at the top)."""


def runs(patch: str) -> list[Run]:
    """The runs of removed and added lines of a patch, with their head positions."""
    found: list[Run] = []
    removed: list[str] = []
    added: list[int] = []
    line_no = 0
    before = 0

    def close() -> None:
        if removed or added:
            found.append(Run(tuple(removed), tuple(added), before))
        removed.clear()
        added.clear()

    for raw in text_lines(patch):
        if raw.startswith("@@"):
            close()
            line_no = _hunk_start(raw)
            before = line_no - 1
        elif raw.startswith("\\"):
            continue
        elif raw.startswith("-"):
            removed.append(raw[1:])
        elif raw.startswith("+"):
            added.append(line_no)
            line_no += 1
        else:
            close()
            before = line_no
            line_no += 1
    close()
    return found


def _hunk_start(header: str) -> int:
    try:
        return int(header.split("+", 1)[1].split(" ", 1)[0].split(",", 1)[0])
    except (IndexError, ValueError):
        return 1


def changes_code(change: FileChange) -> bool:
    """True when the change adds or removes a line of code (not only comments or docstrings)."""
    style = comment_style(change.path)
    if style is None:
        return bool(change.additions or change.deletions or change.status == "added")
    if change.too_large and change.status != "deleted":
        return True  # over 1 MiB: git gives no patch, so the content is unread
    quiet = non_code_lines(change)
    ext = extension(change.path)
    head = text_lines(change.text or "")
    for run in runs(change.patch):
        added = [n for n in run.added if n not in quiet]
        if any(not 0 < n <= len(head) for n in added):
            return True  # the head text is missing (not UTF-8, over 1 MiB) or short: unread
        if added:
            if _same_code(run, [head[n - 1] for n in added], style, ext):
                continue
            return True
        if not run.removed or not all(
            0 < n <= len(head) and is_comment_text(head[n - 1], style) for n in run.added
        ):
            continue  # docstring or block comment text in place of what it removes: an edit
        after = run.before + len(run.added) + 1
        inside = run.before in quiet and after in quiet and run.before > 0
        if inside or (ext in PYTHON_EXTS and _removes_docstring(run, change.text or "", style)):
            continue
        if not all(is_comment_text(t, style) for t in run.removed):
            return True
    return False


def _removes_docstring(run: Run, head: str, style: CommentStyle) -> bool:
    """True when a run only removes one Python string statement (comments and blank lines
    aside) where a docstring stands: at the top of the module, or directly below a `def` or
    `class` header (its signature may span lines). A string removed anywhere else is a value
    (an argument, a part of a return value) or a statement of code."""
    lines = [t for t in run.removed if not is_comment_text(t, style)]
    if not lines or not lines[0].lstrip().lstrip("rRuUbB").startswith(('"""', "'''")):
        return False
    tree = python_tree(textwrap.dedent("\n".join(lines)))
    if tree is None or len(tree.body) != 1:
        return False
    node = tree.body[0]
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        and _docstring_place(python_tree(head), run.before)
    )


def _docstring_place(tree: ast.Module | None, before: int) -> bool:
    """True when what follows head line `before` stands where a docstring does: no statement
    of the module lies at or above it, or it lies inside a definition's header (from the
    `def`/`class` line to the line before its first statement)."""
    if tree is None:
        return False
    if not tree.body or tree.body[0].lineno > before:
        return True
    return any(
        isinstance(node, DEFINITIONS) and node.lineno <= before < node.body[0].lineno
        for node in ast.walk(tree)
    )


def _same_code(run: Run, added: list[str], style: CommentStyle, ext: str) -> bool:
    """True when the run's removed code lines say what its added code lines say."""
    removed = [t for t in run.removed if not is_comment_text(t, style)]
    if len(removed) != len(added):
        return False
    return [code_part(t, style, ext) for t in removed] == [code_part(t, style, ext) for t in added]


def code_part(line: str, style: CommentStyle, ext: str) -> str:
    """A line's code without its trailing line comment, spaces collapsed (Python keeps its
    indentation, which is syntax), quoted version numbers masked on a line that sets a
    version (`__version__ = "0.3.2"`, `"version": "1.2.0"`)."""
    cut = len(line)
    for opener in style.line:
        at = _comment_start(line, opener, quotes_of(ext))
        cut = min(cut, len(line) if at is None else at)
    code = " ".join(line[:cut].split())
    if ext in PYTHON_EXTS:
        code = line[: len(line) - len(line.lstrip())] + code
    return QUOTED_VERSION.sub("0", code) if VERSION_LINE.match(line) else code


def in_comment(change: FileChange, number: int, text: str, column: int) -> bool:
    """True when column `column` of added line `number` lies in a comment or docstring."""
    style = comment_style(change.path)
    if style is None:
        return False
    if number in non_code_lines(change) and text.strip():
        return True
    before = text[:column]
    openers = (*style.line, *(opener for opener, _ in style.block))
    quotes = quotes_of(extension(change.path))
    return any(_comment_start(before, opener, quotes) is not None for opener in openers)


@lru_cache(maxsize=32)
def _tokens(opener: str, quotes: str) -> re.Pattern[str]:
    return re.compile("\n|\\\\.|[" + re.escape(quotes) + "]|" + re.escape(opener))


def _comment_start(text: str, opener: str, quotes: str, pos: int = 0) -> int | None:
    """Where `opener` first occurs in `text` from `pos` outside a string literal, in one pass
    (a string ends at its closing quote or at the end of its line; a backslash escapes the
    next character). A `#` opens a comment only at a line start or after a space, as in
    shell (`${DIR#/tmp/}`) and YAML."""
    inside = ""
    for token in _tokens(opener, quotes).finditer(text, pos):
        found = token.group()
        if found == "\n":
            inside = ""
        elif found[0] == "\\" and len(found) == 2 and found != opener:
            continue
        elif len(found) == 1 and found in quotes:
            inside = "" if inside == found else inside or found
        elif not inside and (
            opener != "#" or token.start() == 0 or text[token.start() - 1].isspace()
        ):
            return token.start()
    return None
