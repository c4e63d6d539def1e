"""Where the data branch keeps its derived files (pure: names only)."""

from __future__ import annotations

REPUTATION_PATH = "reputation.json"
CACHE_PATH = ".rubricate/fold-cache.json"
BUCKET_DIR = ".rubricate/facts/"
ID_DIR = ".rubricate/ids/"
DERIVED_DIRS = ("jobs/", "badges/", ".rubricate/")


def is_derived(path: str) -> bool:
    """True for paths that the derived files own (stale ones are deleted on a full recompute)."""
    return path == REPUTATION_PATH or path.startswith(DERIVED_DIRS)
