"""Which lines of a document are prose, and how many a change adds (git changes built here)."""

from __future__ import annotations

from pathlib import Path

from rubricate.evidence.prose import new_prose, prose_lines
from rubricate.evidence.verifiability import verifiability_check

from .gitrepo import FileValue, snapshot_of

BASE: dict[str, FileValue] = {"README.md": "# p\n"}
SENTENCES = [f"Sentence number {n} says something new about the tool." for n in range(12)]


def added_prose(tmp_path: Path, head: dict[str, FileValue], base: dict[str, FileValue]) -> int:
    snapshot = snapshot_of(tmp_path, base, head)
    return sum(new_prose(c, snapshot.removed_lines) for c in snapshot.changes)


def test_front_matter_code_headings_and_comments_are_not_prose() -> None:
    text = (
        "---\n'pkg-a': patch\n'pkg-b': patch\n---\n\n# Title\n\nOne line of prose.\n"
        "Title two\n=========\n\n    ```cpp\n    #define X 1\n    ```\n<!-- hidden -->\n"
        "~~~\ncode\n~~~\nLast line.\n"
    )
    assert sorted(prose_lines(text)) == [8, 9, 19]


def test_a_thematic_break_is_no_front_matter_unless_it_closes() -> None:
    assert sorted(prose_lines("---\nText one.\nText two.\n")) == [2, 3]


def test_edited_and_reordered_lines_are_not_new_prose(tmp_path: Path) -> None:
    base = {**BASE, "docs/a.md": "\n".join(SENTENCES) + "\n"}
    edited = "\n".join(s.replace("new", "fresh") for s in SENTENCES) + "\n"
    assert added_prose(tmp_path / "a", {"docs/a.md": edited}, base) == 0
    reordered = "\n".join(reversed(SENTENCES)) + "\n"
    assert added_prose(tmp_path / "b", {"docs/a.md": reordered}, base) == 0
    grown = "\n".join([*SENTENCES, "One more.", "And another."]) + "\n"
    assert added_prose(tmp_path / "c", {"docs/a.md": grown}, base) == 2


def test_a_changeset_of_package_names_needs_no_sources(tmp_path: Path) -> None:
    packages = "".join(f"'@scope/package-{n}': patch\n" for n in range(12))
    changeset = f"---\n{packages}---\n\nfix: make the variables optional\n"
    snapshot = snapshot_of(tmp_path / "a", BASE, {".changeset/quiet-owls.md": changeset})
    assert verifiability_check(snapshot).findings == ()
    essay = "\n".join(SENTENCES) + "\n"
    snapshot = snapshot_of(tmp_path / "b", BASE, {"docs/essay.md": essay})
    assert [f.rule for f in verifiability_check(snapshot).findings] == ["sources"]


def test_prose_fenced_by_rules_is_no_front_matter() -> None:
    text = "---\nOur parser is faster than every other.\nIt never fails.\n---\n"
    assert sorted(prose_lines(text)) == [2, 3]
    toml = "+++\ntitle = 'x'\n[params]\ntags = [\n  'a',\n]\n# note\n+++\nBody.\n"
    assert sorted(prose_lines(toml)) == [9]


def test_a_rewrite_into_other_claims_is_new_prose(tmp_path: Path) -> None:
    old = "".join(f"Old sentence {n} about install.\n" for n in range(12))
    base = {**BASE, "docs/a.md": old}
    assert added_prose(tmp_path, {"docs/a.md": "\n".join(SENTENCES) + "\n"}, base) == 12
