"""Tree ids computed from a flat map of files, or from the directories a write touches, are the
ids git gives those trees."""

from __future__ import annotations

from pathlib import Path

from rubricate.ledger.paths import git_blob_id
from rubricate.ledger.treeids import (
    changed_listing,
    directories,
    file_value,
    flat_listing,
    tree_id,
)
from tests.ledger.gitutil import git

FILES = {
    "a/b/f": b"1\n",
    "a/g": b"2\n",
    "a-b": b"3\n",
    "a.b": b"4\n",
    "c/h": b"5\n",
    "top": b"6\n",
}


def _listed(repo: Path) -> dict[str, str]:
    files = {}
    for line in git("ls-tree", "-r", "HEAD", cwd=repo).splitlines():
        meta, path = line.split("\t")
        mode, _, blob = meta.split()
        files[path] = file_value(mode, blob)
    return files


def _repo(root: Path, files: dict[str, bytes], executable: str = "") -> Path:
    repo = root / "repo"
    git("init", "--quiet", str(repo))
    for path, data in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_bytes(data)
        if path == executable:
            (repo / path).chmod(0o755)
    git("add", "-A", cwd=repo)
    git("commit", "--quiet", "-m", "files", cwd=repo)
    return repo


def test_the_ids_of_a_flat_map_are_gits_tree_ids(tmp_path: Path) -> None:
    repo = _repo(tmp_path, FILES, executable="top")
    files = _listed(repo)
    assert files["top"] == git_blob_id(FILES["top"]) + ":100755"
    trees = directories(files)
    assert tree_id(trees[""]) == git("rev-parse", "HEAD^{tree}", cwd=repo)
    assert trees[""]["a"][1] == git("rev-parse", "HEAD:a", cwd=repo)
    assert trees["a"]["b"][1] == git("rev-parse", "HEAD:a/b", cwd=repo)


def test_a_change_gives_the_ids_a_full_listing_gives() -> None:
    files = {p: git_blob_id(d) for p, d in FILES.items()}
    asked: list[str] = []
    whole = flat_listing(files)

    def listing(directory: str) -> dict[str, tuple[str, str]]:
        asked.append(directory)
        return dict(whole(directory))

    changes = {"a/b/new": git_blob_id(b"7\n"), "a/g": git_blob_id(b"8\n"), "d/e/f": "0" * 40}
    after = changed_listing(listing, "", changes, ["c/h", "absent/x"])
    expected = {**{p: i for p, i in files.items() if p != "c/h"}, **changes}
    assert after == directories(expected)[""]
    assert "c" not in after  # emptied, so gone
    assert sorted(set(asked)) == ["", "a", "a/b", "absent", "c", "d", "d/e"]
