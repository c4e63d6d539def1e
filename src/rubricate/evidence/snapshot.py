"""The in-memory snapshot of a change that every evidence check reads (pure: data only).

The shell (git adapter or GitHub adapter) builds it; checks and the judge only read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

ChangeStatus = Literal["added", "modified", "deleted", "renamed", "copied", "typechange"]


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

    def added_lines(self) -> list[tuple[int, str]]:
        """`(head line number, text)` of every added line in the patch."""
        found: list[tuple[int, str]] = []
        line_no = 0
        for raw in self.patch.splitlines():
            if raw.startswith("@@"):
                line_no = _hunk_head_start(raw)
            elif raw.startswith("+") and not raw.startswith("+++"):
                found.append((line_no, raw[1:]))
                line_no += 1
            elif not raw.startswith("-"):
                line_no += 1
        return found


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
        for item in self.changes:
            if item.path == path:
                return item
        return None

    @property
    def request_text(self) -> str:
        """The request a judge may see alone: the spec, then the PR title and body."""
        return "\n\n".join(part for part in (self.spec, self.title, self.body) if part)
