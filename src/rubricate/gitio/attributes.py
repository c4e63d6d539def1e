"""What the base tree's `.gitattributes` say of a change's files (shell: runs git).

The marks are the BASE's (DESIGN.md §2b), so a change cannot hide its own files from the
checks or the judge: the head's `.gitattributes` files, with those the change touches taken
back to their base blobs (from the diff itself, so no second tree listing).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

from rubricate.evidence.snapshot import Attributes
from rubricate.gitio.run import run_git


class DiffEntry(Protocol):
    """One changed path of `git diff --raw`, with its base-side mode and blob."""

    @property
    def path(self) -> str: ...
    @property
    def old_path(self) -> str | None: ...
    @property
    def status(self) -> str: ...
    @property
    def src_mode(self) -> str: ...
    @property
    def src_sha(self) -> str: ...


def _is_attributes(path: str | None) -> bool:
    return path is not None and path.rpartition("/")[2] == ".gitattributes"


def base_attribute_files(head: Mapping[str, str], entries: Sequence[DiffEntry]) -> dict[str, str]:
    """The base tree's `.gitattributes` files (path -> blob id), from the head's and the diff.

    A file the change adds is dropped, one it modifies, deletes or renames is taken back to its
    base blob; the others are the same blob in both trees.
    """
    files = dict(head)
    for entry in entries:
        if not (_is_attributes(entry.path) or _is_attributes(entry.old_path)):
            continue
        if entry.status != "copied":
            files.pop(entry.path, None)
        if entry.status == "added" or not entry.src_mode.startswith("100"):
            continue
        files[entry.old_path or entry.path] = entry.src_sha
    return {path: sha for path, sha in files.items() if _is_attributes(path)}


def check_attributes(
    repo_dir: str | Path, files: Mapping[str, str], paths: Iterable[str], names: Sequence[str]
) -> dict[str, dict[str, str]]:
    """`path -> {name: value}` as `git check-attr` answers under a tree's `.gitattributes`.

    `files` maps each `.gitattributes` path of the tree to its blob id. git reads them from a
    private temporary index that holds only those files, so its own rules apply (nested files,
    patterns, macros such as `binary`), and neither the work tree, the real index, the user's
    nor the system's attributes are consulted (`$GIT_DIR/info/attributes` still is, as always).
    Values are `set`, `unset`, `unspecified` or the value given.
    """
    wanted = [p for p in paths if "\0" not in p]
    if not files or not wanted:
        return {}
    entries = "".join(f"100644 {sha}\t{path}\0" for path, sha in sorted(files.items()))
    with tempfile.TemporaryDirectory(prefix="rubricate-attr-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index"), "GIT_ATTR_NOSYSTEM": "1"}
        run_git(
            ["update-index", "-z", "--index-info"], repo_dir, env=env, input_bytes=entries.encode()
        )
        args = ["-c", "core.attributesFile=/dev/null", "check-attr", "--cached", "-z", "--stdin"]
        stdin = "".join(f"{path}\0" for path in wanted).encode("utf-8")
        out = run_git([*args, *names], repo_dir, env=env, input_bytes=stdin).stdout
    tokens = out.decode("utf-8", "replace").split("\0")
    found: dict[str, dict[str, str]] = {}
    for path, name, value in zip(tokens[0::3], tokens[1::3], tokens[2::3], strict=False):
        found.setdefault(path, {})[name] = value
    return found


def marks(found: dict[str, dict[str, str]], path: str) -> Attributes:
    return Attributes.from_git(found[path]) if path in found else Attributes()
