"""Reading a change from a real git repository into a Snapshot."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubricate.errors import RubricateError
from rubricate.evidence.snapshot import MAX_PARSE_BYTES
from rubricate.gitio import read as snapshot_reader
from rubricate.gitio import refs
from rubricate.gitio import run as git_run
from rubricate.gitio.read import read_snapshot
from rubricate.gitio.refs import (
    default_base,
    export_tree,
    read_commit_log,
    read_file_at,
    resolve_commit,
)

from .gitrepo import Link, commit, git, init_repo, make_change


def test_statuses_counts_and_content(tmp_path: Path) -> None:
    change = make_change(
        tmp_path,
        {"keep.txt": "a\nb\n", "gone.txt": "bye\n", "old.txt": "same\nlines\nhere\n"},
        {
            "keep.txt": "a\nc\n++i;\n",
            "gone.txt": None,
            "old.txt": None,
            "new.txt": "same\nlines\nhere\n",
        },
    )
    snap = read_snapshot(change.repo, change.base, change.head, title="T", body="B", spec="S")
    by_path = {c.path: c for c in snap.changes}
    assert set(by_path) == {"keep.txt", "gone.txt", "new.txt"}
    keep = by_path["keep.txt"]
    assert (keep.status, keep.additions, keep.deletions) == ("modified", 2, 1)
    assert keep.added_lines() == [(2, "c"), (3, "++i;")]
    assert keep.content == b"a\nc\n++i;\n"
    assert keep.patch.startswith("@@")
    assert by_path["gone.txt"].status == "deleted"
    assert by_path["gone.txt"].content is None
    renamed = by_path["new.txt"]
    assert (renamed.status, renamed.old_path) == ("renamed", "old.txt")
    assert snap.touched_paths == {"keep.txt", "gone.txt", "new.txt", "old.txt"}
    assert snap.head_paths == {"keep.txt", "new.txt"}
    assert (snap.title, snap.body, snap.spec) == ("T", "B", "S")
    assert snap.base_sha == change.base
    assert snap.head_sha == change.head
    assert snap.head_tree == git(change.repo, "rev-parse", f"{change.head}^{{tree}}")


def test_awkward_files_are_reported_not_read(tmp_path: Path) -> None:
    huge = b"x" * (MAX_PARSE_BYTES + 10) + b"\n"
    change = make_change(
        tmp_path,
        {"README.md": "hi\n"},
        {
            "image.bin": b"\x00\x01\x02binary",
            "huge.json": huge,
            "link.txt": Link("README.md"),
            "latin.txt": b"caf\xe9\n",
            "dir with space/ünï.txt": "text\n",
        },
    )
    snap = read_snapshot(change.repo, change.base, change.head)
    by_path = {c.path: c for c in snap.changes}
    assert by_path["image.bin"].binary
    assert by_path["image.bin"].content is None
    assert by_path["image.bin"].unreadable_reason == "binary"
    big = by_path["huge.json"]
    assert big.too_large
    assert big.content is None
    assert big.size == len(huge)
    assert big.patch == ""
    assert "larger than 1 MiB" in (big.unreadable_reason or "")
    assert by_path["link.txt"].symlink
    assert by_path["link.txt"].content is None
    assert by_path["latin.txt"].not_utf8
    assert by_path["latin.txt"].text is None
    assert by_path["dir with space/ünï.txt"].text == "text\n"


def test_base_files_wanted_come_from_the_base(tmp_path: Path) -> None:
    change = make_change(
        tmp_path, {"schemas/a.json": "{}\n"}, {"schemas/a.json": '{"changed": 1}\n'}
    )
    snap = read_snapshot(
        change.repo, change.base, change.head, base_files_wanted=["schemas/a.json", "nope.json"]
    )
    assert dict(snap.base_files) == {"schemas/a.json": b"{}\n"}


def test_empty_change(tmp_path: Path) -> None:
    change = make_change(tmp_path, {"a.txt": "a\n"}, {})
    snap = read_snapshot(change.repo, change.base, change.head)
    assert snap.changes == ()
    assert snap.head_paths == {"a.txt"}


def test_git_calls_do_not_grow_with_the_number_of_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counts: list[int] = []
    real = git_run.run_git

    def counting(*args: object, **kwargs: object) -> object:
        counts[-1] += 1
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(snapshot_reader, "run_git", counting)
    monkeypatch.setattr(refs, "run_git", counting)
    for size in (3, 60):
        files = {f"f{i}.py": f"x = {i}\n" for i in range(size)}
        change = make_change(tmp_path / str(size), {"README.md": "r\n"}, files)
        counts.append(0)
        read_snapshot(change.repo, change.base, change.head, base_files_wanted=["README.md"])
    assert counts[0] == counts[1] <= 8


def test_read_file_at(tmp_path: Path) -> None:
    change = make_change(tmp_path, {"a/b.txt": "base\n"}, {"a/b.txt": "head\n"})
    assert read_file_at(change.repo, change.base, "a/b.txt") == b"base\n"
    assert read_file_at(change.repo, "topic", "./a/b.txt") == b"head\n"
    for missing in ("a/none.txt", "a", "../x", ""):
        with pytest.raises(FileNotFoundError):
            read_file_at(change.repo, change.base, missing)
    with pytest.raises(RubricateError, match="unknown ref 'no-such-ref'"):
        read_file_at(change.repo, "no-such-ref", "a/b.txt")


def test_errors_are_clear(tmp_path: Path) -> None:
    with pytest.raises(RubricateError, match="no such directory"):
        read_snapshot(tmp_path / "missing", "HEAD", "HEAD")
    (tmp_path / "plain").mkdir()
    with pytest.raises(RubricateError, match="not a git repository"):
        read_snapshot(tmp_path / "plain", "HEAD", "HEAD")
    change = make_change(tmp_path, {"a": "1\n"}, {"a": "2\n"})
    with pytest.raises(RubricateError, match="unknown ref '--output=x'"):
        resolve_commit(change.repo, "--output=x")


def test_default_base_prefers_origin_head_then_main_then_master(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", branch="master")
    first = commit(repo, {"a": "1\n"})
    git(repo, "checkout", "-q", "-b", "topic")
    head = commit(repo, {"a": "2\n"})
    assert default_base(repo, head) == first
    git(repo, "branch", "main", head)
    assert default_base(repo, head) == head
    git(repo, "update-ref", "refs/remotes/origin/main", first)
    git(repo, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
    assert default_base(repo, head) == first


def test_default_base_missing(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", branch="trunk")
    head = commit(repo, {"a": "1\n"})
    with pytest.raises(RubricateError, match="pass --base"):
        default_base(repo, head)


def test_commit_log_is_the_pr_text(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    base = commit(repo, {"a": "1\n"})
    commit(repo, {"a": "2\n"}, "Add the thing\n\nWhy it matters.")
    one = git(repo, "rev-parse", "HEAD")
    assert read_commit_log(repo, base, one) == ("Add the thing", "Why it matters.")
    two = commit(repo, {"a": "3\n"}, "Fix a typo")
    title, body = read_commit_log(repo, base, two)
    assert title == "Add the thing"
    assert body == "Add the thing\n\nWhy it matters.\n\nFix a typo"
    assert read_commit_log(repo, two, two) == ("", "")


def test_export_tree_writes_the_head_files(tmp_path: Path) -> None:
    change = make_change(tmp_path, {"a.txt": "base\n"}, {"a.txt": "head\n", "d/b.txt": "b\n"})
    dest = tmp_path / "out"
    dest.mkdir()
    export_tree(change.repo, change.base, dest)
    assert (dest / "a.txt").read_text() == "base\n"
    assert not (dest / "d").exists()
