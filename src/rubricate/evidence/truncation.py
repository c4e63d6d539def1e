"""Does a file end in the middle of a structure? (pure: text in).

A file is suspect when the change's last added line is its end and has no newline, and the
text then ends after a dangling `,`, `(`, `:`, `\\`, `=`, `&&`, ... or inside open brackets
(strings and `#`/`//` comments skipped).
"""

from __future__ import annotations

from rubricate.evidence.snapshot import FileChange

OPENERS, CLOSERS = "([{", ")]}"
DANGLING = ("&&", "||", "->", ",", "(", "[", "{", ":", "\\", "=", "+")


def loses_newline(change: FileChange) -> bool:
    """True when the change's last added line is the file's end and has no newline."""
    lines = change.patch.splitlines()
    return any(
        line.startswith("\\") and lines[i - 1].startswith("+") for i, line in enumerate(lines) if i
    )


def open_structure(text: str) -> str | None:
    last = text.rstrip()
    dangling = next((end for end in DANGLING if last.endswith(end)), None)
    if dangling:
        return f"after {dangling!r}"
    depth = _bracket_depth(text)
    return f"inside {depth} open bracket(s)" if depth > 0 else None


def _bracket_depth(text: str) -> int:
    depth = 0
    quote: str | None = None
    escaped = False
    comment = False
    for index, char in enumerate(text):
        if char == "\n":
            comment, escaped, quote = False, False, (quote if quote == "`" else None)
        elif comment:
            continue
        elif quote:
            if escaped or char == "\\":
                escaped = not escaped
            elif char == quote:
                quote = None
        elif char in "\"'`":
            quote = char
        elif char == "#" or text.startswith("//", index):
            comment = True
        elif char in OPENERS:
            depth += 1
        elif char in CLOSERS:
            depth -= 1
    return depth
