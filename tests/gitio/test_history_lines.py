"""What a commit added, line by line from the two blobs, whatever git would call the file."""

from __future__ import annotations

from pathlib import Path

from rubricate.gitio.history import added_lines, branch_history
from tests.ledger.gitutil import bare_remote, commit_files


def test_appended_lines_are_the_tail() -> None:
    assert added_lines(b"", b"a\nb\n") == ["a", "b"]
    assert added_lines(b"a\n", b"a\nb\n\n  \n") == ["b"]


def test_any_other_change_counts_each_line_not_held_as_often_before() -> None:
    assert added_lines(b"a\nb", b"a\nbc\n") == ["bc"]  # a last line extended is a new line
    assert added_lines(b"b\na\n", b"a\nb\nc\n") == ["c"]  # reordered lines are not added
    assert added_lines(b"a\n", b"x\na\na\n") == ["x", "a"]  # a second copy is added
    assert added_lines(b"a\r\n", b"a\n") == ["a"]  # bytes decide, not line-ending options


def test_bytes_that_are_not_text_are_kept_exactly() -> None:
    line = b'{"id": "\xff"}\x00'
    [added] = added_lines(b"\x00\n", b"\x00\n" + line + b"\n")
    assert added.encode("utf-8", "surrogateescape") == line


def test_history_reads_blobs_not_diffs(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path)
    work = tmp_path / "work"
    commit_files(remote, {"ledger/a.jsonl": b"one\n\x00\n", "other.txt": b"x\n"}, work, "first")
    commit_files(remote, {"ledger/a.jsonl": b"one\n\x00\ntwo\n"}, work, "second")
    (work / "ledger" / "a.jsonl").rename(work / "ledger" / "b.jsonl")
    commit_files(remote, {"ledger/b.jsonl": b"one\n\x00\ntwo\nthree\n"}, work, "rename")
    history = branch_history(str(remote), "rubricate-data", {}, tmp_path / "h", "ledger/")
    assert [(c[3], c[4]) for c in history] == [
        ("first", [("ledger/a.jsonl", "one"), ("ledger/a.jsonl", "\x00")]),
        ("second", [("ledger/a.jsonl", "two")]),
        ("rename", [("ledger/b.jsonl", x) for x in ("one", "\x00", "two", "three")]),
    ]
    assert all(c[5] for c in history)  # one line of pushes: all the branch's own
    first = history[0][0]
    assert [
        c[3]
        for c in branch_history(str(remote), "rubricate-data", {}, tmp_path / "h", "ledger/", first)
    ] == ["first"]
