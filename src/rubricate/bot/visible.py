"""Which lines of a comment or PR body are prose GitHub shows as such (pure: text in, lines out).

One linear pass, line by line, with no backtracking regex, so a hostile body of any shape costs
time proportional to its length:
- fenced code blocks (three or more backticks or tildes, up to three spaces of indent, closed by
  a run of the same character at least as long; an unclosed fence runs to the end) are dropped;
- HTML comments are dropped, also when they span lines;
- when asked, quoted lines are dropped with their lazy continuation lines (CommonMark: a line
  right after a quoted line of text, with no blank line between, still belongs to the quote);
- `without_inline_code` blanks inline code spans of one line.
"""

from __future__ import annotations

import re

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_MAX_INDENT = 3


def visible_lines(body: str, *, drop_quotes: bool = True) -> list[tuple[int, str]]:
    """`(line number, text)` of the lines left after stripping code, comments (and quotes)."""
    kept: list[tuple[int, str]] = []
    fence: str | None = None
    in_comment = quoted = False
    for line_no, raw in enumerate(_LINE_BREAK.split(body), start=1):
        if fence is not None:
            fence = None if _closes_fence(raw, fence) else fence
            continue
        text = raw
        if in_comment:
            end = text.find("-->")
            if end < 0:
                continue
            text, in_comment = text[end + 3 :], False
        text, in_comment = strip_html_comments(text)
        fence = fence_opening(text)
        if fence is not None:
            quoted = False
            continue
        if drop_quotes:
            if _is_quote(text):
                quoted = bool(_quote_content(text))
                continue
            if quoted and text.strip():
                continue
            quoted = False
        kept.append((line_no, text))
    return kept


def visible_text(body: str, *, drop_quotes: bool = False) -> str:
    """The visible lines joined again, with inline code blanked."""
    lines = visible_lines(body, drop_quotes=drop_quotes)
    return "\n".join(without_inline_code(text) for _, text in lines)


def without_inline_code(text: str) -> str:
    """The line with each one-line inline code span replaced by a space."""
    return _INLINE_CODE.sub(" ", text)


def strip_html_comments(text: str) -> tuple[str, bool]:
    """The text without complete comments, and whether a comment stays open at the end."""
    parts: list[str] = []
    position = 0
    while True:
        start = text.find("<!--", position)
        if start < 0:
            parts.append(text[position:])
            return "".join(parts), False
        parts.append(text[position:start])
        end = text.find("-->", start + 4)
        if end < 0:
            return "".join(parts), True
        position = end + 3


def fence_opening(text: str) -> str | None:
    """The fence a line opens (its run of backticks or tildes), or None."""
    stripped = text.lstrip(" ")
    if len(text) - len(stripped) > _MAX_INDENT or stripped[:1] not in ("`", "~"):
        return None
    char = stripped[0]
    run = len(stripped) - len(stripped.lstrip(char))
    if run < 3 or (char == "`" and "`" in stripped[run:]):
        return None
    return char * run


def _closes_fence(text: str, fence: str) -> bool:
    stripped = text.strip()
    indent = len(text) - len(text.lstrip(" "))
    run = len(stripped) - len(stripped.lstrip(fence[0]))
    return indent <= _MAX_INDENT and run >= len(fence) and run == len(stripped)


def _is_quote(text: str) -> bool:
    stripped = text.lstrip(" ")
    return len(text) - len(stripped) <= _MAX_INDENT and stripped.startswith(">")


def _quote_content(text: str) -> str:
    return text.lstrip(" ")[1:].lstrip(" >").strip()
