"""Git tree ids of directories, from a flat map of files or from the directories a write touches
(pure: names and hashes only).

A tree's files are `path → blob id`; a file git holds with another mode than `100644` has the
id `<blob id>:<mode>` (so that it never equals the id of content rubricate writes). A tree that
can list one directory without listing the rest (`Listed`, e.g. the git backend's) lets an
append find the new ids of the directories it touches from those directories alone.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from typing import Protocol, runtime_checkable

Entry = tuple[str, str]
"""A directory entry: its git mode and object id (`40000` for a subdirectory)."""
Listing = Callable[[str], Mapping[str, Entry]]
"""A directory's entries by name (`""` names the root); empty when it does not exist."""
FILE_MODE = "100644"
TREE_MODE = "40000"


@runtime_checkable
class Listed(Protocol):
    """A tree that lists one directory at a time."""

    def entries(self, directory: str) -> Mapping[str, Entry]:
        """The entries of `directory` (`""` for the root); empty when it does not exist."""


def file_entry(value: str) -> Entry:
    """The entry of a file from its id in a flat map (`<blob id>[:<mode>]`)."""
    blob, _, mode = value.partition(":")
    return (mode or FILE_MODE, blob)


def file_value(mode: str, blob: str) -> str:
    """A file's id in a flat map: the blob id, with its mode when that is not `100644`."""
    return blob if mode == FILE_MODE else f"{blob}:{mode}"


def tree_id(entries: Mapping[str, Entry]) -> str:
    """The id git gives a tree holding these entries."""
    body = b"".join(
        b"%s %s\0%s" % (mode.encode(), name.encode("utf-8", "surrogateescape"), bytes.fromhex(oid))
        for name, (mode, oid) in sorted(entries.items(), key=_git_order)
    )
    return hashlib.sha1(b"tree %d\0" % len(body) + body, usedforsecurity=False).hexdigest()


def _git_order(item: tuple[str, Entry]) -> bytes:
    """Git sorts a directory as if its name ended in `/`."""
    name, (mode, _) = item
    raw = name.encode("utf-8", "surrogateescape")
    return raw + b"/" if mode == TREE_MODE else raw


def flat_listing(files: Mapping[str, str]) -> Listing:
    """A listing of a flat map of files (every directory computed once, on first use)."""
    trees: dict[str, dict[str, Entry]] | None = None

    def listing(directory: str) -> Mapping[str, Entry]:
        nonlocal trees
        if trees is None:
            trees = directories(files)
        return trees.get(directory, {})

    return listing


def listing_of(tree: Mapping[str, str]) -> Listing:
    """How to list a tree's directories: its own way when it has one."""
    return tree.entries if isinstance(tree, Listed) else flat_listing(tree)


def directories(files: Mapping[str, str]) -> dict[str, dict[str, Entry]]:
    """Every directory of a flat map of files with its entries, subdirectories by tree id."""
    trees: dict[str, dict[str, Entry]] = {"": {}}
    for path, value in files.items():
        parent, _, name = path.rpartition("/")
        if parent not in trees:
            trees[parent] = {}
            _register(trees, parent)
        trees[parent][name] = file_entry(value)
    for directory in sorted((d for d in trees if d), key=lambda d: d.count("/"), reverse=True):
        parent, _, name = directory.rpartition("/")
        trees[parent][name] = (TREE_MODE, tree_id(trees[directory]))
    return trees


def _register(trees: dict[str, dict[str, Entry]], directory: str) -> None:
    """Make sure every ancestor of `directory` is listed."""
    while directory:
        directory = directory.rpartition("/")[0]
        if directory in trees:
            return
        trees[directory] = {}


def changed_listing(
    listing: Listing, directory: str, changes: Mapping[str, str], deletions: Iterable[str]
) -> dict[str, Entry]:
    """The entries of `directory` after writing `changes` (path → blob id) and deleting
    `deletions`, reading only the directories they touch; an emptied subdirectory goes."""
    prefix = f"{directory}/" if directory else ""
    gone = [p[len(prefix) :] for p in deletions if p.startswith(prefix)]
    written = {p[len(prefix) :]: v for p, v in changes.items() if p.startswith(prefix)}
    entries = dict(listing(directory))
    below: set[str] = set()
    for relative in gone:
        head, sep, _ = relative.partition("/")
        if sep:
            below.add(head)
        else:
            entries.pop(head, None)
    for relative, value in written.items():
        head, sep, _ = relative.partition("/")
        if sep:
            below.add(head)
        else:
            entries[head] = file_entry(value)
    for name in below:
        inner = changed_listing(listing, prefix + name, changes, deletions)
        if inner:
            entries[name] = (TREE_MODE, tree_id(inner))
        else:
            entries.pop(name, None)
    return entries
