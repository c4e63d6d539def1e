"""Read what a spec (the linked issue) asks for: checklist, deliverables, scope (pure: text in).

Heuristics, documented because users write specs by hand:
- a checklist item is a list line `- [ ] text` or `- [x] text`; fenced code and HTML comments
  are ignored;
- named deliverables are the paths in list items under a heading that says deliverables,
  outputs, artifacts or files, and on lines starting `Deliverable:`; a path is a backticked
  token with a `/` or a known file extension (or an unquoted one in those list items);
- scope is the paths listed under a `Scope`/`In scope` heading or on a `Scope:` line, and
  `Out of scope` lists paths the change must not touch.
An item is covered (`item_covered`, shared by the completeness and spec_adherence checks) when
the change touches a path it names (exactly, as a glob, or as a directory), or, for items that
name no path, when at least half of its significant words (stemmed) occur in the changed paths
and added lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from rubricate.evidence.file_kinds import (
    DATA_EXTS,
    DOC_EXTS,
    SOURCE_EXTS,
    STRUCTURED_EXTS,
    extension,
    glob_regex,
    is_glob,
    words,
)
from rubricate.evidence.snapshot import Snapshot

_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,}).*?^\1\2[`~]*[ \t]*$", re.M | re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_CHECK = re.compile(r"^\s*[-*+]\s+\[([ xX])\]\s+(.+?)\s*$")
_LIST = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(.+?)\s*$")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_LABEL = re.compile(r"^\s*\**(deliverables?|outputs?|scope|out of scope)\**\s*:\**\s*(.+)$", re.I)
_TICKED = re.compile(r"`([^`\n]+)`")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_PATH_EXTS = (
    SOURCE_EXTS
    | DOC_EXTS
    | DATA_EXTS
    | frozenset(STRUCTURED_EXTS)
    | words("html css scss svg png jpg jpeg gif pdf xml ini cfg lock ipynb proto graphql tf")
)
STOPWORDS = words(
    "the and for with that this from into are was were has have had not but all any can its"
    " should must will would could may might also each every when then than them they their"
    " there here which what who how why use used using make made add added adds new old via"
    " sure ensure support supports file files code change changes one two per just only"
)
_SECTION_KINDS = (
    ("out_of_scope", re.compile(r"out[ -]of[ -]scope|do not (touch|change)|non-goals?", re.I)),
    ("scope", re.compile(r"\bscope\b|allowed paths|touch only", re.I)),
    (
        "deliverables",
        re.compile(r"deliverable|outputs?\b|artifacts?|files? to (add|create|change)", re.I),
    ),
)


@dataclass(frozen=True)
class ChecklistItem:
    """One `- [ ]` line of the spec."""

    text: str
    checked: bool
    line: int
    paths: tuple[str, ...]
    words: frozenset[str]


@dataclass(frozen=True)
class Spec:
    """What the spec asks for, as far as heuristics can tell."""

    checklist: tuple[ChecklistItem, ...] = ()
    deliverables: tuple[str, ...] = ()
    scope: tuple[str, ...] = ()
    out_of_scope: tuple[str, ...] = ()

    @property
    def open_items(self) -> tuple[ChecklistItem, ...]:
        """Unchecked checklist items (checked ones were done before the change)."""
        return tuple(item for item in self.checklist if not item.checked)


def parse_spec(text: str) -> Spec:
    """Checklist, named deliverables and scope of a markdown spec."""
    clean = _COMMENT.sub(_blank_keep_lines, _FENCE.sub(_blank_keep_lines, text))
    checklist: list[ChecklistItem] = []
    lists: dict[str, list[str]] = {"deliverables": [], "scope": [], "out_of_scope": []}
    section: str | None = None
    for number, line in enumerate(clean.splitlines(), start=1):
        heading = _HEADING.match(line)
        if heading:
            section = _section_kind(heading.group(2))
            continue
        checked = _CHECK.match(line)
        if checked:
            checklist.append(_item(checked.group(2), checked.group(1) != " ", number))
        _collect_paths(line, section, lists)
    return Spec(
        tuple(checklist),
        _unique(lists["deliverables"]),
        _unique(lists["scope"]),
        _unique(lists["out_of_scope"]),
    )


def _blank_keep_lines(match: re.Match[str]) -> str:
    return "\n" * match.group(0).count("\n")


def _section_kind(title: str) -> str | None:
    return next((kind for kind, pattern in _SECTION_KINDS if pattern.search(title)), None)


def _collect_paths(line: str, section: str | None, lists: dict[str, list[str]]) -> None:
    label = _LABEL.match(line)
    if label:
        kind = _section_kind(label.group(1)) or "deliverables"
        lists[kind].extend(paths_in(label.group(2), bare=True))
        return
    listed = _LIST.match(line)
    if section and listed:
        lists[section].extend(paths_in(listed.group(1), bare=True)[:1])


def _item(text: str, checked: bool, line: int) -> ChecklistItem:
    return ChecklistItem(
        text, checked, line, tuple(paths_in(text)), frozenset(significant_words(text))
    )


def paths_in(text: str, *, bare: bool = False) -> list[str]:
    """Path-like tokens: backticked ones, and (with `bare`) a leading unquoted one."""
    found = [token.strip() for token in _TICKED.findall(text) if looks_like_path(token.strip())]
    if bare and not found:
        first = text.split()[0].strip("*_,;:()") if text.split() else ""
        found = [first] if looks_like_path(first) else []
    return found


def looks_like_path(token: str) -> bool:
    """True for repository paths and globs (`out/x.json`, `docs/`, `*.csv`), not code or URLs."""
    if not token or any(ch in token for ch in " ()=<>'\",{}") or "://" in token:
        return False
    if token.startswith(("/", "../", "-", "$", "~")):
        return False
    return (
        (token.endswith("/") and len(token) > 1)
        or extension(token) in _PATH_EXTS
        or ("/" in token and not token.endswith("."))
    )


def significant_words(text: str) -> list[str]:
    """Stemmed, lower-case words of three or more letters that are not stop words."""
    found: list[str] = []
    for raw in _WORD.findall(text.replace("_", " ")):
        for part in _CAMEL.split(raw):
            lowered = part.lower()
            if len(lowered) >= 3 and lowered not in STOPWORDS:
                found.append(stem(lowered))
    return found


def stem(word: str) -> str:
    """A crude English stem: drop a plural -s, then -ing or -ed, then a final -e."""
    if word.endswith("s") and not word.endswith("ss") and len(word) > 4:
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) > 4 else word


def vocabulary(texts: Iterable[str]) -> frozenset[str]:
    """The set of significant words of many texts (changed paths and added lines)."""
    raw: set[str] = set()
    for text in texts:
        raw.update(_WORD.findall(text.replace("_", " ")))
    return frozenset(significant_words(" ".join(raw)))


def _unique(items: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(item[2:] if item.startswith("./") else item for item in items))


def change_vocabulary(snapshot: Snapshot) -> frozenset[str]:
    """Significant words of the changed paths and added lines."""
    texts = [c.path for c in snapshot.changes]
    texts += [c.added_text for c in snapshot.changes]
    return vocabulary(texts)


def touches(name: str, snapshot: Snapshot) -> bool:
    """True when the change touches the path, glob or directory `name`."""
    if not is_glob(name):
        return name in snapshot.touched_paths
    regex = glob_regex(name)
    return any(regex.match(path) for path in snapshot.touched_paths)


def item_covered(item: ChecklistItem, snapshot: Snapshot, words: frozenset[str]) -> bool:
    """True when the change touches a path the item names, or shares half its words."""
    if any(touches(path, snapshot) for path in item.paths):
        return True
    if item.paths:
        return False
    return bool(item.words) and len(item.words & words) * 2 >= len(item.words)
