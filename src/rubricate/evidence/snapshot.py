"""The in-memory snapshot of a change that every evidence check reads (pure: data only).

The shell (git adapter or GitHub adapter) builds it; checks and the judge only read it.
A `FileChange.patch` holds the hunks of one file (from its first `@@` line), like the `patch`
field of GitHub's pull-request files API; a full `git diff` chunk with headers is accepted too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

ChangeStatus = Literal["added", "modified", "deleted", "renamed", "copied", "typechange"]
MAX_PARSE_BYTES = 1024 * 1024
"""Files over 1 MiB are size-checked, never parsed or scanned."""


ATTRIBUTE_NAMES = ("linguist-generated", "linguist-vendored", "diff")
"""The `.gitattributes` the checks read, as `git check-attr` names them."""


@dataclass(frozen=True)
class Attributes:
    """What the base tree's `.gitattributes` say of a path, read as GitHub reads them.

    `generated` and `vendored` follow Linguist: None when unspecified, False when unset
    (`-linguist-generated`) or `false`, True for any other value. `diff` is False when the
    `diff` attribute is unset (`-diff`, or the `binary` macro).
    """

    generated: bool | None = None
    vendored: bool | None = None
    diff: bool = True

    @classmethod
    def from_git(cls, values: Mapping[str, str]) -> Attributes:
        """From `git check-attr` values: `set`, `unset`, `unspecified` or a value."""
        generated, vendored = (_linguist(values.get(name)) for name in ATTRIBUTE_NAMES[:2])
        return cls(generated, vendored, values.get("diff") != "unset")


def _linguist(value: str | None) -> bool | None:
    if value is None or value == "unspecified":
        return None
    return value not in ("unset", "false")


@dataclass(frozen=True)
class FileChange:
    """One changed path with its patch and, where readable, its head content."""

    path: str
    status: ChangeStatus
    patch: str = ""
    old_path: str | None = None
    additions: int = 0
    deletions: int = 0
    binary: bool = False
    symlink: bool = False
    size: int | None = None
    content: bytes | None = None
    """The head blob; None when deleted, binary, a symlink, or over the size limit."""
    submodule: bool = False
    attributes: Attributes = Attributes()
    """What the base's `.gitattributes` say of the path (all unspecified when unknown)."""

    def added_lines(self) -> list[tuple[int, str]]:
        """`(head line number, text)` of every added line in the patch."""
        return list(self.added)

    @cached_property
    def added(self) -> tuple[tuple[int, str], ...]:
        """`(head line number, text)` of every added line, computed once."""
        return tuple(_added_lines(self.patch))

    @cached_property
    def added_text(self) -> str:
        """Every added line joined by newlines: one regex search tells whether any line matches."""
        return "\n".join(text for _, text in self.added)

    @cached_property
    def text(self) -> str | None:
        """The head content decoded as UTF-8; None when absent or not valid UTF-8."""
        if self.content is None:
            return None
        try:
            return self.content.decode("utf-8")
        except UnicodeDecodeError:
            return None

    @cached_property
    def base_text(self) -> str | None:
        """The base content, rebuilt from the head text and the patch (line ends aside); None
        when the change adds the file, the head text is unknown or the patch does not fit it."""
        if self.status not in ("modified", "renamed") or self.text is None or not self.patch:
            return None
        return _base_of(text_lines(self.text), self.patch)

    @property
    def too_large(self) -> bool:
        """True when the head blob is over the parse limit (size-checked only)."""
        return self.size is not None and self.size > MAX_PARSE_BYTES

    @property
    def not_utf8(self) -> bool:
        """True when the head content was read but is not valid UTF-8 text."""
        return self.content is not None and self.text is None

    @property
    def deleted(self) -> bool:
        """True when the change removes the path."""
        return self.status == "deleted"

    @property
    def unreadable_reason(self) -> str | None:
        """Why the head content cannot be inspected as text, or None when it can."""
        if self.deleted:
            return "deleted"
        if self.symlink:
            return "a symlink (not followed)"
        if self.submodule:
            return "a submodule (not inspected)"
        if self.too_large:
            return f"larger than 1 MiB ({self.size} bytes; size-checked, not parsed)"
        if self.binary:
            return "binary"
        if self.not_utf8:
            return "not valid UTF-8 text"
        if self.content is None:
            return "content not available"
        return None


DOUBLE_QUOTED = re.compile(r'"(?:\\.|[^"\\])*"')
"""A double-quoted string with backslash escapes, on one line (JSON, Rust, Zig, Julia)."""


def text_lines(text: str) -> list[str]:
    """The lines of a text as git counts them: split on `\\n` only, each without a trailing
    `\\r` (`str.splitlines` also splits on form feeds and Unicode line separators)."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _added_lines(patch: str) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    line_no = 0
    in_hunk = False
    for raw in text_lines(patch):
        if raw.startswith("@@"):
            line_no, in_hunk = _hunk_head_start(raw), True
        elif not in_hunk or raw.startswith(("-", "\\")):
            continue
        elif raw.startswith("+"):
            found.append((line_no, raw[1:]))
            line_no += 1
        elif raw.startswith("diff --git "):
            in_hunk = False
        else:
            line_no += 1
    return found


def _base_of(head: list[str], patch: str) -> str | None:
    base: list[str] = []
    at = 0
    in_hunk = False
    for raw in text_lines(patch):
        if raw.startswith("@@"):
            empty = raw.split("+", 1)[-1].split(" ", 1)[0].endswith(",0")
            start = max(_hunk_head_start(raw) - (0 if empty else 1), 0)
            if start < at or start > len(head):
                return None
            base.extend(head[at:start])
            at, in_hunk = start, True
        elif not in_hunk or raw.startswith("\\"):
            continue
        elif raw.startswith("diff --git "):
            in_hunk = False
        elif raw.startswith("-"):
            base.append(raw[1:])
        else:
            at += 1
            if at > len(head) or (raw.startswith(" ") and head[at - 1] != raw[1:]):
                return None
            if not raw.startswith("+"):
                base.append(head[at - 1])
    if at > len(head):
        return None
    return "\n".join([*base, *head[at:]]) + "\n"


def _hunk_head_start(header: str) -> int:
    try:
        plus = header.split("+", 1)[1].split(" ", 1)[0]
        return int(plus.split(",", 1)[0])
    except (IndexError, ValueError):
        return 0


@dataclass(frozen=True)
class Snapshot:
    """A change as data: trees, changed files, the request text and base-ref files."""

    base_sha: str
    head_sha: str
    base_tree: str = ""
    head_tree: str = ""
    change_id: str = ""
    """A digest of the change itself (see `gitio.snapshot_reader.change_digest`); "" if unknown."""
    repo: str = ""
    title: str = ""
    body: str = ""
    spec: str = ""
    spec_source: str | None = None
    changes: tuple[FileChange, ...] = ()
    head_paths: frozenset[str] = field(default_factory=frozenset)
    """Every path in the head tree (for required deliverables and globs)."""
    base_files: Mapping[str, bytes] = field(default_factory=dict)
    """Files read at the base ref that checks need (schemas), by path."""

    def change(self, path: str) -> FileChange | None:
        """The change of a path, if it changed."""
        return self._by_path.get(path)

    @cached_property
    def _by_path(self) -> dict[str, FileChange]:
        return {item.path: item for item in self.changes}

    @property
    def touched_paths(self) -> frozenset[str]:
        """Every path the change adds, modifies, deletes or renames (old and new names)."""
        return self._touched

    @cached_property
    def _touched(self) -> frozenset[str]:
        paths = {item.path for item in self.changes}
        paths.update(item.old_path for item in self.changes if item.old_path)
        return frozenset(paths)

    @cached_property
    def removed_lines(self) -> frozenset[str]:
        """Every line the change removes (stripped): an added copy of one is moved, not new."""
        found: set[str] = set()
        for change in self.changes:
            if change.deletions:
                found.update(
                    stripped
                    for raw in text_lines(change.patch)
                    if raw.startswith("-")
                    and not raw.startswith("---")
                    and (stripped := raw[1:].strip())
                )
        return frozenset(found)

    @property
    def request_text(self) -> str:
        """The request a judge may see alone: the spec, then the PR title and body."""
        return "\n\n".join(part for part in (self.spec, self.title, self.body) if part)
