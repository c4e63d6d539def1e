"""Does a change cover a spec item? Shared by completeness and spec_adherence (pure: heuristics).

An item is covered when the change touches a path the item names (exactly, as a glob, or as a
directory), or, for items that name no path, when at least half of the item's significant
words (stemmed, see `rubricate.evidence.spec`) occur in the changed paths and added lines.
"""

from __future__ import annotations

from rubricate.evidence.paths import glob_regex, is_glob
from rubricate.evidence.snapshot import Snapshot
from rubricate.evidence.spec import ChecklistItem, vocabulary


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
