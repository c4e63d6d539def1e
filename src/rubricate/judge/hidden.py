"""Finds the text a GitHub reader cannot see, exactly, and strips it (pure: no I/O).

Only these are stripped, each listed as a `Strip` (line, bytes removed, what):
- HTML comments (an unclosed one hides the rest of the text, as it does on GitHub);
- an element whose start tag has the `hidden` attribute or a `style` that hides it
  (`display:none`, `visibility:hidden`, `opacity:0`, `font-size:0`, zero width and height):
  from its start tag to its matching end tag, never further. A void element (`<input>`,
  `<img>` ...) or a self-closed or unclosed one loses its tag only. A class name such as
  `overflow-hidden` and `<input type="hidden">` (no `hidden` attribute) are never hidden;
- `<script>` and `<template>` elements with their content (GitHub never shows them; unclosed,
  they run to the end of the text, as an HTML parser reads them);
- link reference definitions (`[label]: url "title"`), which markdown never shows as text:
  `[//]: # (...)` and other definitions to `#` or `<>` are markdown comments, stripped on any
  line outside fenced code; any other definition only where CommonMark reads one: outside
  fenced code, at most three spaces of indent, not continuing a paragraph;
- Unicode tag, zero-width, bidi and other invisible characters, and control characters.

One pass over the tags (a stack per tag name pairs start and end tags) keeps it linear.
"""

from __future__ import annotations

import bisect
import itertools
import operator
import re
from dataclasses import dataclass

INVISIBLE_CLASS = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b\u200c\u200e\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0e\ufeff\uffa0\ufff9-\ufffb"
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef\U0001d173-\U0001d17a"
)
_JOINERS = "\u200d\ufe0f"
_EMOJI_BASE = f"[^\\x00-\\x7f{INVISIBLE_CLASS}{_JOINERS}]"
INVISIBLE = re.compile(f"[{INVISIBLE_CLASS}]|(?<!{_EMOJI_BASE})[{_JOINERS}]")
"""Invisible, bidi and tag characters; ZWJ and VS16 count only where no emoji precedes them."""
_MAYBE_INVISIBLE = re.compile(f"[{INVISIBLE_CLASS}{_JOINERS}]")
"""Every character `INVISIBLE` may match: a bare character class is found far faster on long
text, and `INVISIBLE` is then tried only where it is."""
CONFUSABLES = str.maketrans(
    "аеорсухіјѕԁԛԝһӏɡАВЕКМНОРСТХУІЈЅԌԚԜοαενρτυικχΑΒΕΖΗΙΚΜΝΟΡΤΥΧ",
    "aeopcyxijsdqwhlgABEKMHOPCTXYIJSGQWoaevptuikxABEZHIKMNOPTYX",
)
"""Cyrillic and Greek letters that look Latin, mapped to Latin (for reading, not display)."""
CONTROL = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
MD_COMMENT = re.compile(
    r"^[ \t]*\[[^\]\n]*\]:[ \t]*(?:#|<>)[ \t]*(?:\([^\n]*\)|\"[^\n]*\")[ \t]*$", re.M
)
LINK_DEFINITION = re.compile(
    r" {0,3}\[(?=[^\]\n]*\S)[^\]\n]{1,999}\]:[ \t]*(?:<[^>\n]*>|\S+)"
    r"(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*"
)
"""One line that is a whole link reference definition (the title on the same line)."""
_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
NEVER_SHOWN = frozenset({"script", "template"})
"""Elements GitHub drops with their content."""
_TAG = re.compile(r"<(/?)([A-Za-z][\w:-]*)((?:[^<>\"']|\"[^\"]*\"|'[^']*')*)>")
_ATTR = re.compile(r"([^\s=/>\"']+)(?:\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s\"'>]+))?")
_HIDING_STYLE = re.compile(
    r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)|opacity\s*:\s*0*\.?0+"
    r"|font-size\s*:\s*0*\.?0+[a-z%]*)\s*(?:!important\s*)?(?:;|$)",
    re.IGNORECASE,
)
_ZERO = r"\s*:\s*0*\.?0+[a-z%]*\s*(?:!important\s*)?(?:;|$)"
_ZERO_WIDTH = re.compile(rf"(?:^|;)\s*(?:max-)?width{_ZERO}", re.IGNORECASE)
_ZERO_HEIGHT = re.compile(rf"(?:^|;)\s*(?:max-)?height{_ZERO}", re.IGNORECASE)
VOID_ELEMENTS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
     "track", "wbr", "param", "keygen"}
)  # fmt: skip


@dataclass(frozen=True)
class Strip:
    """One piece of hidden text removed: where it started, its size in UTF-8 bytes, and what."""

    line: int
    removed: int
    what: str
    text: str = ""
    """The removed text (for the scan's findings; never shown to the judge)."""


@dataclass(frozen=True)
class Stripped:
    """A strip in the report: which field or file, which line, bytes removed, what."""

    path: str
    line: int
    removed: int
    what: str

    def as_dict(self) -> dict[str, str | int]:
        """The `{path, line, bytes, what}` JSON shape."""
        return {"path": self.path, "line": self.line, "bytes": self.removed, "what": self.what}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Stripped:
        """The inverse of `as_dict` (KeyError, TypeError or ValueError if bad)."""
        return cls(
            str(data["path"]), int(str(data["line"])), int(str(data["bytes"])), str(data["what"])
        )


def strip_hidden(text: str) -> str:
    """`text` without anything a GitHub reader cannot see."""
    return find_hidden(text)[0]


def find_hidden(text: str) -> tuple[str, tuple[Strip, ...]]:
    """`text` without anything hidden, and every strip made, in order."""
    if not _may_hide(text):
        return text, ()
    kept, strips = _cut(text, _spans(text))
    cleaned = _without_characters(kept, text.isascii())
    return cleaned, tuple(sorted([*strips, *_characters(text)], key=lambda s: s.line))


def hidden_strips(text: str) -> tuple[Strip, ...]:
    """`find_hidden(text)[1]`, without making the cleaned text (what the scan needs)."""
    if not _may_hide(text):
        return ()
    strips = _cut(text, _spans(text))[1]
    return tuple(sorted([*strips, *_characters(text)], key=lambda s: s.line))


def _spans(text: str) -> list[tuple[int, int, str]]:
    """The hidden comments, elements and definitions of `text`, merged, in order."""
    spans = _comment_spans(text)
    spans += _element_spans(text, spans)
    if "]:" in text:
        spans += _definition_spans(text)
    return _merged(spans)


def _may_hide(text: str) -> bool:
    return "<" in text or "]:" in text or not text.isascii() or bool(CONTROL.search(text))


def _comment_spans(text: str) -> list[tuple[int, int, str]]:
    if "<!--" not in text:
        return []
    return [(m.start(), m.end(), "HTML comment") for m in HTML_COMMENT.finditer(text)]


def _element_spans(text: str, comments: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The spans of hidden elements: start tag to matching end tag (or the tag alone)."""
    if "<" not in text:
        return []
    starts = [s for s, _e, _w in comments]
    ends = [e for _s, e, _w in comments]
    opened: dict[str, list[int]] = {}
    closes: dict[int, int] = {}
    tags: list[tuple[int, int, str, bool]] = []  # start, end, name, hides
    for match in _TAG.finditer(text):
        index = bisect.bisect_right(starts, match.start()) - 1
        if index >= 0 and match.start() < ends[index]:
            continue  # inside a comment
        closing, name, attrs = match.group(1) == "/", match.group(2).lower(), match.group(3)
        if closing:
            stack = opened.get(name)
            if stack:
                closes[stack.pop()] = match.end()
            continue
        position = len(tags)
        self_closed = attrs.rstrip().endswith("/") or name in VOID_ELEMENTS
        tags.append((match.start(), match.end(), name, _hides(name, attrs)))
        if not self_closed:
            opened.setdefault(name, []).append(position)
    spans: list[tuple[int, int, str]] = []
    for position, (start, end, name, hides) in enumerate(tags):
        if not hides:
            continue
        close = closes.get(position)
        if close is None and name in NEVER_SHOWN:
            spans.append((start, len(text), f"hidden <{name}> element (unclosed)"))
        elif close is None:
            spans.append((start, end, f"hidden <{name}> tag (no content: void or unclosed)"))
        else:
            spans.append((start, close, f"hidden <{name}> element"))
    return spans


def _hides(name: str, attrs: str) -> bool:
    return name in NEVER_SHOWN or hides_element(attrs)


def _definition_spans(text: str) -> list[tuple[int, int, str]]:
    """Link reference definitions (each a whole line) where markdown reads them."""
    spans: list[tuple[int, int, str]] = []
    fence = ""
    after_text = False
    offset = 0
    for line in text.splitlines(keepends=True):
        start, offset = offset, offset + len(line)
        body = line.rstrip("\r\n")
        opening = _FENCE.match(body)
        if fence:
            fence = "" if opening and opening.group(1).startswith(fence) else fence
            continue
        if opening:
            fence, after_text = opening.group(1), False
            continue
        if "]:" in body and MD_COMMENT.fullmatch(body):
            spans.append((start, start + len(body), "markdown comment"))
            continue
        if "]:" in body and not after_text and LINK_DEFINITION.fullmatch(body):
            spans.append((start, start + len(body), "link reference definition"))
            continue
        after_text = bool(body.strip()) and not _HEADING.match(body)
    return spans


def hides_element(attrs: str) -> bool:
    """True when a start tag's attributes hide the element."""
    if "hidden" not in attrs.lower() and "style" not in attrs.lower():
        return False
    for match in _ATTR.finditer(attrs):
        name = match.group(1).lower()
        if name == "hidden":
            return True
        if name == "style" and match.group(2):
            style = match.group(2).strip("\"'")
            if _HIDING_STYLE.search(style) or (
                _ZERO_WIDTH.search(style) and _ZERO_HEIGHT.search(style)
            ):
                return True
    return False


def _merged(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Spans in order, any span inside an earlier one dropped, overlaps joined."""
    out: list[tuple[int, int, str]] = []
    for start, end, what in sorted(spans, key=lambda s: (s[0], -s[1])):
        if out and start < out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end, out[-1][2])
            continue
        out.append((start, end, what))
    return out


def find_invisible(text: str) -> list[re.Match[str]]:
    """The matches of `INVISIBLE` in `text` (as `finditer` finds them, faster on long text)."""
    found = (INVISIBLE.match(text, c.start()) for c in _MAYBE_INVISIBLE.finditer(text))
    return [match for match in found if match]


def drop_invisible(text: str) -> str:
    """`text` without what `INVISIBLE` matches (as `sub` removes it, faster on long text)."""
    found = find_invisible(text)
    if not found:
        return text
    parts = [text[a.end() : b.start()] for a, b in itertools.pairwise(found)]
    return text[: found[0].start()] + "".join(parts) + text[found[-1].end() :]


def line_starts(text: str) -> list[int]:
    """The offset where each line of `text` starts (line n at index n - 1), from the lines'
    lengths (much faster on long text than a regex's matches)."""
    sizes = map(operator.add, map(len, text.split("\n")), itertools.repeat(1))
    starts = list(itertools.accumulate(sizes, initial=0))
    starts.pop()
    return starts


class _Lines:
    def __init__(self, text: str) -> None:
        self._starts = line_starts(text)

    def of(self, offset: int) -> int:
        return bisect.bisect_right(self._starts, offset)


def _cut(text: str, spans: list[tuple[int, int, str]]) -> tuple[str, list[Strip]]:
    if not spans:
        return text, []
    lines = _Lines(text)
    parts: list[str] = []
    strips: list[Strip] = []
    last = 0
    for start, end, what in spans:
        parts.append(text[last:start])
        piece = text[start:end]
        strips.append(Strip(lines.of(start), len(piece.encode("utf-8", "replace")), what, piece))
        last = end
    parts.append(text[last:])
    return "".join(parts), strips


def _characters(original: str) -> list[Strip]:
    """One strip per line of `original` that had invisible or control characters (a
    byte-order mark at the very start is removed but not reported)."""
    patterns = [CONTROL] if original.isascii() else [INVISIBLE, CONTROL]
    found: dict[int, list[str]] = {}
    lines: _Lines | None = None
    for pattern in patterns:
        matches = find_invisible(original) if pattern is INVISIBLE else pattern.finditer(original)
        for match in matches:
            if match.start() == 0 and match.group(0) == "\ufeff":
                continue
            lines = lines or _Lines(original)
            found.setdefault(lines.of(match.start()), []).append(match.group(0))
    strips = []
    for line, chars in sorted(found.items()):
        codes = ", ".join(sorted({f"U+{ord(c[0]):04X}" for c in chars})[:5])
        size = sum(len(c.encode("utf-8", "replace")) for c in chars)
        what = f"{len(chars)} invisible or control character(s) ({codes})"
        strips.append(Strip(line, size, what, "".join(chars)))
    return strips


def _without_characters(kept: str, ascii_original: bool) -> str:
    """`kept` without invisible and control characters."""
    if not ascii_original:
        kept = drop_invisible(kept)
    return CONTROL.sub("", kept)
