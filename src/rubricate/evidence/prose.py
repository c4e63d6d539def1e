"""Which lines of a prose document are prose, and how many of them a change adds (pure).

A line of a document is prose unless it is blank, in front matter (a block fenced by `---` or
`+++` from the file's first line whose lines are keys, list items or indented: metadata such
as a changeset's package list), in a fenced
code block (```` ``` ```` or `~~~`, at any indentation, fences included), a heading (`#` to
`######`, or a reStructuredText or setext underline) or a one-line HTML comment.

What the change adds is counted stretch by stretch of the diff: the prose lines added there
but for those most of whose words (of four letters or more) stand in the lines the stretch
removes (an edited, re-worded or re-wrapped line is not new prose; a rewrite into other
claims is), never counting a copy of a line the change removes elsewhere (moved or reordered
text).
"""

from __future__ import annotations

import re
from functools import lru_cache

from rubricate.evidence.code_lines import runs
from rubricate.evidence.snapshot import FileChange

WORD = re.compile(r"\w+")
EDIT_WORD = 4
"""Words shorter than this (`the`, `is`, numbers) say little of what a line says."""
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
HEADING = re.compile(r"^\s{0,3}#{1,6}(\s|$)")
UNDERLINE = re.compile(r"^\s*([=\-~^\"'`#*+:.])\1{2,}\s*$")
HTML_COMMENT = re.compile(r"^\s*<!--.*-->\s*$")
FRONT_MATTER = ("---", "+++")
METADATA = re.compile(r"\s|$|#|-\s|-$|[\]}]|[\"']?[\w@./-]+[\"']?\s*[:=]|\[")
"""A line of front matter: indented, blank, a comment, a list item, a closing bracket, a key or
a TOML table."""
FRONT_MATTER_LINES = 200
"""Front matter closes within this many lines, or the file has none."""


@lru_cache(maxsize=64)
def prose_lines(text: str) -> frozenset[int]:
    """Line numbers (1-based) of the document's prose lines."""
    lines = text.splitlines()
    skip = _front_matter(lines)
    found: set[int] = set()
    fence = ""
    for number, line in enumerate(lines, 1):
        opened = FENCE.match(line)
        if fence:
            if opened and opened.group(1).startswith(fence):
                fence = ""
            continue
        if opened:
            fence = opened.group(1)
            continue
        if number <= skip or not line.strip():
            continue
        if HEADING.match(line) or UNDERLINE.match(line) or HTML_COMMENT.match(line):
            continue
        found.add(number)
    return frozenset(found)


def _front_matter(lines: list[str]) -> int:
    """How many leading lines are front matter (0 when none): every line inside is a key
    (`title: x`, `"@pkg/a": patch`, `weight = 3`), a list item, an indented continuation,
    a comment or blank."""
    if not lines or lines[0].strip() not in FRONT_MATTER:
        return 0
    for number, line in enumerate(lines[1:FRONT_MATTER_LINES], 2):
        if line.strip() == lines[0].strip():
            return number
        if not METADATA.match(line):
            return 0
    return 0


def new_prose(change: FileChange, moved: frozenset[str]) -> int:
    """How many lines of prose the change adds to a document (see the module docstring)."""
    text = change.text
    if text is None:
        return sum(1 for _, line in change.added if line.strip() and not FENCE.match(line))
    prose = prose_lines(text)
    head = text.splitlines()
    total = 0
    for run in runs(change.patch):
        removed = {word for line in run.removed for word in _words(line)}
        total += sum(
            1
            for n in run.added
            if n in prose
            and 0 < n <= len(head)
            and head[n - 1].strip() not in moved
            and not _edited(head[n - 1], removed)
        )
    return total


def _words(line: str) -> set[str]:
    """The line's words of four letters or more, lower-cased (what says what a line says)."""
    return {word for word in WORD.findall(line.lower()) if len(word) >= EDIT_WORD}


def _edited(line: str, removed: set[str]) -> bool:
    """True when most of a line's words stand in the lines its stretch removes."""
    words = _words(line)
    return len(words & removed) * 2 >= len(words) if words else bool(removed)
