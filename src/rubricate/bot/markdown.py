"""Markdown for the bot's views and replies: escaping user text and small builders (pure).

All user text goes through `escape`: HTML is turned into entities, markdown punctuation is
backslash-escaped, and `@` cannot mention anyone: a zero-width space follows it (an `&#64;`
entity would not do, since GitHub decodes entities before it looks for mentions). Literals go
through `code`, a code span whose fence is longer than any backtick run in its text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rubricate.numbers import decimal_text

if TYPE_CHECKING:  # (the rubric's pydantic models: a type only)
    from rubricate.rubric.model import ScoreValue

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~])")
_ENTITIES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), (":", "&#58;"))
ZERO_WIDTH_SPACE = "\u200b"
DASH = "–"
TRUNCATED = "… (truncated)"


def no_mentions(text: str) -> str:
    """Text in which `@name` cannot mention or notify anyone."""
    return text.replace("@", "@" + ZERO_WIDTH_SPACE)


def escape(text: str) -> str:
    """User text made inert in markdown and HTML (no tags, no formatting, no mentions)."""
    text = _MD_SPECIAL.sub(r"\\\1", text)
    for char, entity in _ENTITIES:
        text = text.replace(char, entity)
    return no_mentions(text)


def cell(text: str, limit: int = 200) -> str:
    """Escaped user text for one table cell: one line, `|`-safe, shortened."""
    flat = " ".join(text.split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return escape(flat)


def block(text: str, limit: int = 1000) -> str:
    """Escaped multi-line user text as a blockquote."""
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    lines = [escape(line) for line in text.splitlines() or [""]]
    return "\n".join(f"> {line}" if line else ">" for line in lines)


def code(text: str) -> str:
    """A short literal (an id, a sha, a path, a token) in a code span its content cannot break."""
    flat = no_mentions(" ".join(text.split())) or " "
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def number(value: float | None, digits: int = 2) -> str:
    """A number for display, rounded (`3.45`, `4`), or a dash."""
    if value is None:
        return DASH
    return decimal_text(value, digits)


def score_text(value: ScoreValue, present: bool = True) -> str:
    """A criterion score for display: a number, yes/no, n/a for null, a dash when absent."""
    if not present:
        return DASH
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return number(value)


def table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str = "") -> str:
    """A markdown table; `align` holds one of `l`/`r` per column (left by default)."""
    marks = [("---:" if align[i : i + 1] == "r" else "---") for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(marks) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def details(summary: str, body: str) -> str:
    """A folded `<details>` section."""
    return f"<details><summary>{summary}</summary>\n\n{body}\n\n</details>"


def truncate(text: str, limit: int, where: str = "") -> str:
    """Text cut under `limit` characters at a line break, with a note saying so."""
    if len(text) < limit:
        return text
    note = f"\n\n_… truncated: the full report is longer than {limit:,} characters{where}._"
    cut = text[: max(0, limit - len(note) - 1)]
    line_end = cut.rfind("\n")
    if line_end > 0:
        cut = cut[:line_end]
    return cut + note


def capped(text: str, limit: int) -> str:
    """`text` if it has at most `limit` characters, else its start and a truncation mark."""
    if len(text) <= limit:
        return text
    return text[: limit - len(TRUNCATED) - 1] + "\n" + TRUNCATED
