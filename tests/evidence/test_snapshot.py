"""The snapshot's derived views: a changed file's base text rebuilt from its head and patch."""

from __future__ import annotations

from pathlib import Path

import pytest

from .gitrepo import FileValue, snapshot_of

LINES = [f"line {n}" for n in range(30)]


def text(lines: list[str]) -> str:
    return "".join(f"{line}\n" for line in lines)


@pytest.mark.parametrize(
    "head",
    [
        [*LINES[:5], "new", *LINES[5:]],
        [*LINES[:3], *LINES[4:20], "changed", *LINES[21:]],
        LINES[1:-1],
        ["top", *LINES, "bottom"],
        [],
        [*LINES[:5], "form\x0cfeed", "sep\u2028arator", "next\x85line", *LINES[5:]],
    ],
)
def test_base_text_is_the_base_file(tmp_path: Path, head: list[str]) -> None:
    base: dict[str, FileValue] = {"a.txt": text(LINES)}
    snapshot = snapshot_of(tmp_path, base, {"a.txt": text(head)})
    (change,) = snapshot.changes
    assert change.base_text == text(LINES)


def test_control_characters_inside_lines_keep_the_base_text_exact(tmp_path: Path) -> None:
    lines = [*LINES[:4], "a\x0bb", "c\x1cd", "e\u2028f", *LINES[4:]]
    base: dict[str, FileValue] = {"a.txt": text(lines)}
    snapshot = snapshot_of(tmp_path, base, {"a.txt": text([*lines[:6], "changed", *lines[7:]])})
    (change,) = snapshot.changes
    assert change.base_text == text(lines)


def test_an_added_file_has_no_base_text(tmp_path: Path) -> None:
    snapshot = snapshot_of(tmp_path, {"a.txt": "a\n"}, {"b.txt": "b\n"})
    (change,) = snapshot.changes
    assert change.base_text is None


def test_removed_lines_are_collected_across_files(tmp_path: Path) -> None:
    base: dict[str, FileValue] = {"a.txt": "keep\nold one\n", "b.txt": "old two\n"}
    snapshot = snapshot_of(tmp_path, base, {"a.txt": "keep\n", "b.txt": None})
    assert snapshot.removed_lines == frozenset({"old one", "old two"})
