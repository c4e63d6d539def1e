"""What counts as a TODO marker, a stub marker or placeholder text on an added line (pure).

- a marker is `TODO`, `FIXME` or `XXX` in upper case, as a word, in a comment or docstring
  of code (`code_lines.in_comment`): never an identifier such as `Status.TODO` or `XXX_LIMIT`,
  nor a file name, a path segment or a stand-in of X's (`TODO.md`, `/PREFIX/XXX`,
  `XXX-XXXX`);
  in prose, at the start of a line or list item, or before a colon, unless it follows a
  comment opener (`<!--`, `#`, `//`, `/*`) inside inline code: `` `<!-- TODO: add link -->` ``
  quotes a snippet of code, while `` `TODO: benchmark on ARM` `` styles the author's own
  marker; a line with an odd number of backticks holds no span one can trust (an apostrophe
  typed as a backtick) and is read whole; `TODO` and `FIXME` always
  mean unfinished work, `XXX` only when its text says work is left (`certain_marker`);
- a stub marker is Python's `raise NotImplementedError`, Rust's `todo!()`/`unimplemented!()`,
  or a "not implemented" error thrown, raised or panicked with;
- placeholder text is "lorem ipsum" (always) or a bracketed stand-in (`[placeholder]`,
  `<insert email here>`, `<TBD>`); "placeholder" as an ordinary word, an HTML
  `placeholder=` attribute, or a stand-in in a template (a template file by extension, a
  file in a `templates/` or `prompts/` folder, a file with `{{ name }}` or `{% tag %}`
  variables, or a line with a `${name}` variable) is not one;
- a line that re-wraps a removed marker line (the removed line starts with it, or it with the
  removed line, the shorter holding four words or more; when it is the shorter, the next line
  goes on with the removed line's rest) is moved, not added: each removed line covers one.
"""

from __future__ import annotations

import re

from rubricate.evidence.code_lines import in_comment
from rubricate.evidence.snapshot import FileChange

MARKERS = re.compile(r"(?<![\w.-])(?<!\w/)(TODO|FIXME|XXX)\b(?!-X+\b|\.\w)")
"""A marker word on its own: not part of an identifier, a dotted name or file name
(`Status.TODO`, `TODO.md`), a path segment (`/PREFIX/XXX`) or a stand-in of X's
(`XXX-XXXX`); `TODO/FIXME:`, `FIXME-later:` and `TODO-1234` are markers."""
CERTAIN_MARKERS = frozenset({"TODO", "FIXME"})
"""Markers that always mean unfinished work. `XXX` also marks a warning or an explanation
(`XXX: Meta and Super are swapped here, for compatibility`): certain only when its text says
work is left (`UNFINISHED`), a note otherwise."""
UNFINISHED = re.compile(
    r"\b(?:(?:un)?implement(?:ed)?|investigate|should|needs?|later|temporar(?:y|ily)|hacky?"
    r"|fake|stub|broken|wrong|remove|replace|fix|finish|unfinished|incomplete|workaround"
    r"|revisit|clean ?up|refactor|figure out|not yet)\b",
    re.I,
)
"""Words that say work is left to do (`XXX: investigate these keys`, `XXX: we should use the
keybindings`, `XXX: temporary hack`)."""
PROSE_MARKER = re.compile(
    r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:\*\*)?(TODO|FIXME|XXX)\b|\b(TODO|FIXME|XXX):"
)
CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")
"""Inline code in prose (`` `x` ``, ``` `` x `` ```)."""
QUOTED_MARKER = re.compile(r"(?:<!--|#|//|/\*).*?\b(?:TODO|FIXME|XXX)\b")
"""A marker after a comment opener: in inline code, a quoted snippet of code."""
PLACEHOLDER = re.compile(
    r"\blorem ipsum\b|[<\[]\s*(placeholder|insert\b[^>\]]*\bhere|your\b[^>\]]*\bhere|tbd)\s*[>\]]",
    re.I,
)
LOREM = re.compile(r"\blorem ipsum\b", re.I)
UNIMPLEMENTED = re.compile(
    r"\braise\s+NotImplementedError\b|\btodo!\(|\bunimplemented!\(|"
    r"\b(throw|raise|panic)\b.*\bnot\s+implemented(\s+yet)?\b",
    re.I,
)
TEMPLATE_SLOT = re.compile(r"\{\{\s*[\w.]+\s*\}\}|\{%.*?%\}")
"""A template variable (`{{ name }}`, `{% tag %}`): a file with one is a template, whose
bracketed stand-ins are slots it means to leave for whoever fills it."""
LINE_SLOT = re.compile(r"\$\{\w+\}")
"""A `${name}` variable: a template only on its own line (shell and JavaScript use it too)."""
TEMPLATE_EXTS = frozenset({"j2", "jinja", "jinja2", "hbs", "mustache", "tmpl", "tpl", "njk"})
TEMPLATE_DIRS = frozenset({"templates", "template", "prompts", "prompt"})
PYTHON_UNIMPLEMENTED = re.compile(r"\braise\s+NotImplementedError\b")
MARKER_HINTS = ("todo", "fixme", "xxx", "placeholder", "lorem", "implemented", "tbd", "here")


def placeholder_in(change: FileChange, text: str) -> bool:
    """True when an added line holds placeholder text (see above)."""
    found = PLACEHOLDER.search(text)
    if found is None:
        return False
    if LOREM.search(text):
        return True
    parts = change.path.lower().split("/")
    template = parts[-1].rsplit(".", 1)[-1] in TEMPLATE_EXTS or bool(TEMPLATE_DIRS & {*parts[:-1]})
    return not (template or LINE_SLOT.search(text) or TEMPLATE_SLOT.search(change.text or ""))


def marker_in(change: FileChange, number: int, text: str, *, code: bool, prose: bool) -> str | None:
    """The marker a line adds in a comment (code) or as a marker (prose), or None."""
    if prose:
        found = PROSE_MARKER.search(_without_quoted_snippets(text))
        return (found.group(1) or found.group(2)) if found else None
    if not code:
        return None
    for found in MARKERS.finditer(text):
        if in_comment(change, number, text, found.start()):
            return found.group(1)
    return None


def _without_quoted_snippets(text: str) -> str:
    """A prose line without its inline code spans that quote a marker in a comment."""
    if "`" not in text or text.count("`") % 2:
        return text
    return CODE_SPAN.sub(lambda span: "" if QUOTED_MARKER.search(span[0]) else span[0], text)


def certain_marker(marker: str, text: str) -> bool:
    """True when a marker means unfinished work: `TODO` and `FIXME` always, `XXX` when the
    text after it names work left to do (`UNFINISHED`)."""
    if marker in CERTAIN_MARKERS:
        return True
    at = text.find(marker)
    return marker == "XXX" and UNFINISHED.search(text, max(at, 0)) is not None


REWRAP_WORDS = 4
"""The shorter of two lines that start alike holds this many words, or they are not one text."""
COMMENT_LEAD = re.compile(r"^\s*(?:#+|//+|/?\*+|--|<!--)?\s*")


class Rewraps:
    """The marker lines a change removes, each of which may cover one added line that
    re-wraps it (see above)."""

    def __init__(self, removed: frozenset[str]) -> None:
        self.left = sorted(_marker_lines(removed))

    def take(self, line: str, following: str) -> bool:
        """True (and the removed line used up) when `line` re-wraps a removed marker line;
        `following` is the head line after it, where a shortened line's rest must go on."""
        stripped = line.strip()
        for old in self.left:
            if (
                old != stripped
                and _starts_alike(stripped, old)
                and _goes_on(stripped, old, following)
            ):
                self.left.remove(old)
                return True
        return False


def _starts_alike(one: str, other: str) -> bool:
    short, long = sorted((one, other), key=len)
    return len(re.findall(r"\w+", short)) >= REWRAP_WORDS and long.startswith(short)


def _goes_on(line: str, old: str, following: str) -> bool:
    rest = old[len(line) :].split()
    return not rest or COMMENT_LEAD.sub("", following).startswith(rest[0])


def _marker_lines(removed: frozenset[str]) -> tuple[str, ...]:
    return tuple(line for line in removed if MARKERS.search(line))
