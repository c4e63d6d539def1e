"""What a reader sees of a comment or PR body, and what that visible text links to (pure).

`visible_lines` and `command_lines` keep what GitHub shows as prose; `linked_issues` and
`reverted_pr` read the issues a body closes and the PR a revert undoes from that text.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import accumulate
from typing import Any, Protocol

from rubricate.judge.hidden import hides_element

COMMAND_LINE = re.compile(r"^ {0,3}/([A-Za-z][A-Za-z0-9_-]*)(?:[ \t]+(.*))?$")
"""A command attempt: `/word` at the start of a line, then a space or the end of the line."""
UNSHOWN = frozenset({"details", "pre", "script", "style", "template", "textarea"})
"""Elements whose content a reader does not see as prose: folded, code, or never shown."""
_TITLE = r"""(?:"[^"]*"|'[^']*'|\([^()]*\))"""
_LINK_TAIL = re.compile(
    r"\]\((?=(?P<lead>\s*))(?P=lead)(?:<[^<>\n]*>|[^\s()<>]*)"
    rf"(?=(?P<gap>\s*))(?P=gap)(?:{_TITLE}(?=(?P<tail>\s*))(?P=tail))?\)"
)
"""The destination and title of an inline link or image, from its `](` to its `)`. Each run
of white space is taken whole (a lookahead and its backreference: an atomic group), so a long
run that ends in no `)` is given up once, not tried at every split (linear)."""
_DEFINITION = re.compile(
    rf"^ {{0,3}}\[[^\]\n]+\]:\s*(?:<[^<>\n]*>|\S+)(?:\s+{_TITLE})?[ \t]*$", re.MULTILINE
)
"""A link reference definition: its label, destination and title (never shown)."""
_TAG_OPEN = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)")
_ATTRIBUTES = re.compile(r"""[^>"']*(?:(?:"[^"]*"|'[^']*')[^>"']*)*""")
"""A tag's attributes up to its `>`, quoted values whole (no two ways to match: linear)."""
_VOID = frozenset({"area", "br", "col", "embed", "hr", "img", "input", "source", "track", "wbr"})
# fmt: off
_BLOCK_NAMES = frozenset({
    "address", "article", "aside", "base", "basefont", "blockquote", "body", "caption",
    "center", "col", "colgroup", "dd", "details", "dialog", "dir", "div", "dl", "dt",
    "fieldset", "figcaption", "figure", "footer", "form", "frame", "frameset", "h1", "h2", "h3",
    "h4", "h5", "h6", "head", "header", "hr", "html", "iframe", "legend", "li", "link", "main",
    "menu", "menuitem", "nav", "noframes", "ol", "optgroup", "option", "p", "param", "pre",
    "script", "search", "section", "style", "summary", "table", "tbody", "td", "textarea",
    "tfoot", "th", "thead", "title", "tr", "track", "ul"
})
# fmt: on
"""CommonMark's HTML block names (types 1 and 6): such a tag at a line's start is markup even
when it does not close before the paragraph ends."""
_BLOCK_START = re.compile(r" {0,3}</?([A-Za-z][A-Za-z0-9-]*)(?:[ \t>]|/>|$)")
_SURROGATE = re.compile("[\ud800-\udfff]")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_UNSEEN_OPEN = re.compile(r"<!--|<\?|<!\[CDATA\[|<![A-Za-z]")
_UNSEEN_CLOSE = {"<!-": "-->", "<?": "?>", "<![": "]]>"}
"""What ends a comment, a processing instruction, a CDATA section; a declaration ends at `>`."""
_MAX_INDENT = 3


def visible_lines(body: str, *, drop_quotes: bool = True) -> list[tuple[int, str]]:
    """`(line number, text)` of the lines left after stripping code, comments (and quotes).

    Keeps the lines GitHub shows as prose, in one linear pass with no backtracking
    regex, so a hostile body of any shape costs time proportional to its length:
    - fenced code blocks (three or more backticks or tildes, up to three spaces of indent, closed by
      a run of the same character at least as long; an unclosed fence runs to the end) are dropped;
    - HTML comments, processing instructions, CDATA sections and declarations are dropped,
      also when they span lines;
    - when asked, quoted lines are dropped with their lazy continuation lines (CommonMark: a line
      right after a quoted line of text, with no blank line between, still belongs to the quote);
    - `without_inline_code` blanks inline code spans of one line.
    """
    kept: list[tuple[int, str]] = []
    fence: str | None = None
    comment: str | None = None
    quoted = False
    for line_no, raw in enumerate(_LINE_BREAK.split(body), start=1):
        if fence is not None:
            fence = None if _closes_fence(raw, fence) else fence
            continue
        text = raw
        if comment is not None:
            end = text.find(comment)
            if end < 0:
                continue
            text = text[end + len(comment) :]
        text, comment = strip_html_comments(text)
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


def command_lines(body: str) -> list[tuple[int, str]]:
    """The visible lines a reader sees without opening anything, where commands are read.

    Besides code, comments and quotes, the content of `UNSHOWN` elements and of hidden ones
    (the `hidden` attribute, a hiding style) is dropped: a line that opens one keeps only the
    text before the tag, and the lines up to the one that closes it are dropped whole. A tag
    is markup up to its `>` (outside quoted attribute values), whatever lines it spans: a line
    that starts inside a tag (an attribute value, an image's alt text) is never prose. As in
    CommonMark, `<name` is a tag only when it starts an HTML block (`_BLOCK_NAMES`, at a line's
    start: such a tag that never closes hides everything after it) or when its `>` comes before
    the paragraph ends; otherwise it is text (`i<n` in prose).
    """
    lines = visible_lines(body)
    if not any(COMMAND_LINE.match(text) for _, text in lines):
        return lines
    in_links = _link_continuations(lines)
    closes = _closing_tags(lines)
    kept: list[tuple[int, str]] = []
    state = _Markup()
    for line_no, text in lines:
        masked = in_links.get(line_no, 0)
        if masked >= len(text):
            continue
        text = "_" * masked + text[masked:]
        if state == _Markup() and "<" not in text:
            kept.append((line_no, text))
            continue
        shown, state = _outside_unshown(text, state, closes.get(line_no, ()))
        if shown is not None:
            kept.append((line_no, shown))
    return kept


def _link_continuations(lines: list[tuple[int, str]]) -> dict[int, int]:
    """How much of each line that continues a link's destination or title from an earlier line
    is link (from the line's start): a link `[text](url "title")` or a definition
    `[label]: url "title"` may run over lines within a paragraph, and a reader sees only the link
    text (a definition, not even that). What follows the link on its last line is text."""
    found: dict[int, int] = {}
    for block in _paragraphs(lines):
        text = "\n".join(line for _, line in block)
        if "]" not in text:
            continue
        starts = [0, *accumulate(len(line) + 1 for _, line in block)]
        for pattern in (_LINK_TAIL, _DEFINITION):
            for match in pattern.finditer(text):
                first = bisect_right(starts, match.start()) - 1
                last = bisect_right(starts, match.end() - 1) - 1
                for i in range(first + 1, last + 1):
                    end = min(match.end() - starts[i], len(block[i][1]))
                    found[block[i][0]] = max(found.get(block[i][0], 0), end)
    return found


def _closing_tags(lines: list[tuple[int, str]]) -> dict[int, list[bool]]:
    """For each line of a paragraph holding a `<`: whether the attributes of a tag started at
    each offset (outside quotes) reach a `>` before the paragraph ends. One right-to-left pass
    per paragraph over the states outside, in `"` and in `'` (linear in the paragraph)."""
    found: dict[int, list[bool]] = {}
    for block in _paragraphs(lines):
        scans = [_scan_text(line) for _, line in block]
        if not any("<" in scan for scan in scans):
            continue
        text = "\n".join(scans)
        outside = [False] * (len(text) + 1)
        double = single = False
        for position in range(len(text) - 1, -1, -1):
            char, after = text[position], outside[position + 1]
            if char == '"':
                outside[position], double = double, after
            elif char == "'":
                outside[position], single = single, after
            else:
                outside[position] = char == ">" or after
        start = 0
        for (line_no, _), scan in zip(block, scans, strict=True):
            found[line_no] = outside[start : start + len(scan) + 1]
            start += len(scan) + 1
    return found


def _scan_text(text: str) -> str:
    """The line with its inline code blanked, as tags are looked for."""
    return _INLINE_CODE.sub(lambda code: " " * len(code.group()), text)


def _paragraphs(lines: list[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    """Runs of consecutive non-blank lines (a link never spans a blank line)."""
    runs: list[list[tuple[int, str]]] = []
    previous = -1
    for line_no, text in lines:
        if not text.strip():
            previous = -1
            continue
        if line_no != previous + 1 or not runs:
            runs.append([])
        runs[-1].append((line_no, text))
        previous = line_no
    return runs


@dataclass(frozen=True)
class _Tag:
    """A tag whose `>` has not come yet: closing or not, its name, its attributes' lines so far
    (a list, so a tag over many lines is joined once), and the quote a value is still open in."""

    closing: bool
    name: str
    attrs: list[str]
    quote: str | None


@dataclass(frozen=True)
class _Markup:
    """What is open at the end of a line: an unshown element (name, depth) and a tag."""

    element: tuple[str, int] | None = None
    tag: _Tag | None = None


def _outside_unshown(
    text: str, state: _Markup, closes: Sequence[bool]
) -> tuple[str | None, _Markup]:
    """The line's text before any unshown element or unclosed tag (None when the line starts
    inside one), and what is still open after the line; `closes` says, for each offset, whether
    a tag's attributes started there reach their `>` in the paragraph."""
    shown = text if state == _Markup() else None
    scan = _scan_text(text)
    element, position = state.element, 0
    tag = state.tag
    while True:
        if tag is None:
            found = _TAG_OPEN.search(scan, position)
            if found is None:
                return shown, _Markup(element)
            if not _is_tag(found, scan, closes):
                position = found.end()
                continue
            tag = _Tag(found.group(1) == "/", found.group(2).lower(), [], None)
            start, position = found.start(), found.end()
        else:
            start = -1
        end, quote = _tag_end(scan, position, tag.quote)
        tag.attrs.append(scan[position:end])
        if end >= len(scan):
            if start >= 0 and shown is not None:
                shown = shown[:start]
            return shown, _Markup(element, replace(tag, quote=quote))
        attrs = "\n".join(tag.attrs)
        opens = element is None and _opens_unshown(tag.closing, tag.name, attrs)
        element = _element_after(element, tag.closing, tag.name, opens)
        if opens and start >= 0 and shown is not None:
            shown = shown[:start]
        tag, position = None, end + 1


def _is_tag(found: re.Match[str], scan: str, closes: Sequence[bool]) -> bool:
    """Whether a `<name` is markup: it starts an HTML block, or its `>` comes in the paragraph."""
    if found.end() < len(closes) and closes[found.end()]:
        return True
    block = _BLOCK_START.match(scan) if not scan[: found.start()].strip(" ") else None
    return block is not None and block.group(1).lower() in _BLOCK_NAMES


def _tag_end(scan: str, position: int, quote: str | None) -> tuple[int, str | None]:
    """Where the tag's `>` is from `position` (the line's length when not on this line), and
    the quote still open at the line's end."""
    if quote is not None:
        closes = scan.find(quote, position)
        if closes < 0:
            return len(scan), quote
        position = closes + 1
    attributes = _ATTRIBUTES.match(scan, position)
    end = attributes.end() if attributes else position
    if end < len(scan) and scan[end] == ">":
        return end, None
    return len(scan), scan[end] if end < len(scan) else None


def _opens_unshown(closing: bool, name: str, attrs: str) -> bool:
    empty = closing or name in _VOID or attrs.rstrip().endswith("/")
    return not empty and (name in UNSHOWN or hides_element(attrs))


def _element_after(
    element: tuple[str, int] | None, closing: bool, name: str, opens: bool
) -> tuple[str, int] | None:
    """The unshown element open after a tag: nested tags of its name counted."""
    if element is None:
        return (name, 1) if opens else None
    if name != element[0]:
        return element
    depth = element[1] + (-1 if closing else 1)
    return (name, depth) if depth else None


def without_lone_surrogates(value: Any) -> Any:
    """JSON data with every lone surrogate in its strings (`\\udcff`: valid JSON, but no
    character, and nothing can write it as UTF-8) replaced by U+FFFD."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value) if _SURROGATE.search(value) else value
    if isinstance(value, list):
        return [without_lone_surrogates(item) for item in value]
    if isinstance(value, Mapping):
        return {key: without_lone_surrogates(item) for key, item in value.items()}
    return value


def visible_text(body: str, *, drop_quotes: bool = False) -> str:
    """The visible lines joined again, with inline code blanked."""
    lines = visible_lines(body, drop_quotes=drop_quotes)
    return "\n".join(without_inline_code(text) for _, text in lines)


def without_inline_code(text: str) -> str:
    """The line with each one-line inline code span replaced by a space."""
    return _INLINE_CODE.sub(" ", text)


def strip_html_comments(text: str) -> tuple[str, str | None]:
    """The text without complete comments, processing instructions (`<?…?>`), CDATA sections
    and declarations (`<!X…>`), none of which a reader sees; and the end marker still awaited
    when one stays open at the end of the line."""
    parts: list[str] = []
    position = 0
    while True:
        found = _UNSEEN_OPEN.search(text, position)
        if found is None:
            parts.append(text[position:])
            return "".join(parts), None
        parts.append(text[position : found.start()])
        closer = _UNSEEN_CLOSE.get(found.group()[:3], ">")
        end = text.find(closer, found.end())
        if end < 0:
            return "".join(parts), closer
        position = end + len(closer)


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


KEYWORDS = ("close", "closes", "closed", "fix", "fixes", "fixed", "resolve", "resolves", "resolved")
_REF = r"(?:(?P<owner>[\w.-]+)/(?P<name>[\w.-]+))?#(?P<number>\d+)"
_URL = r"https?://(?P<host>[^/\s]+)/(?P<uowner>[\w.-]+)/(?P<uname>[\w.-]+)/issues/(?P<unumber>\d+)"
_SERVER = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://(?P<netloc>[^/?#]*)")
_PATTERN = re.compile(
    rf"(?<![\w/-])(?:{'|'.join(KEYWORDS)}):?[ \t]+(?:{_REF}|{_URL})(?![\w/])",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class IssueRef:
    """One linked issue: the repository's full name and the issue number."""

    repo: str
    number: int

    def __str__(self) -> str:
        return f"{self.repo}#{self.number}"


def linked_issues(
    body: str, repo: str, *, server_url: str = "https://github.com"
) -> list[IssueRef]:
    """The issues `body` closes, in order of appearance, without duplicates.

    Read from the visible text: GitHub's closing keywords (`Closes #12`,
    `fixes owner/repo#34`, `Resolved: #5`, issue URLs on the same server); only issues of the PR's
    own repository count for the spec and the deadline (`same_repo`).
    """
    host = _host(server_url)
    found: list[IssueRef] = []
    for match in _PATTERN.finditer(visible_text(body or "")):
        ref = _ref(match, repo, host)
        if ref is not None and ref not in found:
            found.append(ref)
    return found


def _ref(match: re.Match[str], repo: str, host: str) -> IssueRef | None:
    if match.group("number"):
        owner, name = match.group("owner"), match.group("name")
        return IssueRef(f"{owner}/{name}" if owner and name else repo, int(match.group("number")))
    if match.group("host").lower() != host:
        return None
    return IssueRef(f"{match.group('uowner')}/{match.group('uname')}", int(match.group("unumber")))


def same_repo(refs: list[IssueRef], repo: str) -> tuple[list[IssueRef], list[IssueRef]]:
    """The references to issues of `repo` (names ignore case), and the others."""
    ours = [ref for ref in refs if ref.repo.lower() == repo.lower()]
    return ours, [ref for ref in refs if ref not in ours]


def _host(server_url: str) -> str:
    """The server's `host[:port]`, lower-cased, as `urlsplit(...).netloc` gives it."""
    match = _SERVER.match(server_url.strip())
    return match.group("netloc").lower() if match else ""


REVERT_TITLE = 'Revert "'


class PullText(Protocol):
    """What `reverted_pr` reads of a pull request (a `PullRequestEvent` has it)."""

    @property
    def title(self) -> str: ...
    @property
    def body(self) -> str: ...
    @property
    def repo(self) -> str: ...
    @property
    def number(self) -> int: ...


_REVERTS = re.compile(r"^\s*Reverts\s+(?:([\w.-]+/[\w.-]+))?#(\d+)\b")


def reverted_pr(event: PullText) -> int | None:
    """The PR of the same repository a revert PR undoes, or None when it is no revert.

    Reads what
    GitHub's "Revert" button writes: a title `Revert "<title>"` and a body line
    `Reverts owner/repo#N` naming a PR of the same repository; anything else records no dispute.
    """
    if not event.title.startswith(REVERT_TITLE):
        return None
    for _, line in visible_lines(event.body):
        match = _REVERTS.match(without_inline_code(line))
        if match is None:
            continue
        repo, number = match.group(1), int(match.group(2))
        if (repo is None or repo.lower() == event.repo.lower()) and number != event.number:
            return number
    return None
