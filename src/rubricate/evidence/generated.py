"""Tell generated, vendored and lock files from source changes (pure: a change in, a reason out).

A file counts as generated when its first 2 KB carry a common marker (`@generated`,
`DO NOT EDIT`, `DO NOT MODIFY`, `Code generated ... DO NOT EDIT.`, "automatically generated"),
as vendored when a folder on its path is `vendor`, `vendored`, `third_party` or
`node_modules`, and lockfiles are named by `paths.is_lockfile`.
"""

from __future__ import annotations

import re

from rubricate.evidence import paths as kinds
from rubricate.evidence.snapshot import FileChange

HEAD_BYTES = 2048
MARKER = re.compile(
    r"@generated\b|\bDO NOT (?:EDIT|MODIFY)\b|\bCode generated\b.*\bDO NOT EDIT\b"
    r"|\b(?:auto(?:matically)?[- ]?generated|generated automatically)\b",
    re.IGNORECASE,
)
VENDOR_DIRS = frozenset({"vendor", "vendored", "third_party", "third-party", "node_modules"})


def not_authored(change: FileChange) -> str | None:
    """Why a changed file is not a hand-written change (generated, vendored, lockfile), or None."""
    if kinds.is_lockfile(change.path):
        return "lockfile"
    if any(part.lower() in VENDOR_DIRS for part in change.path.split("/")[:-1]):
        return "vendored"
    head = (change.content or b"")[:HEAD_BYTES].decode("utf-8", "replace")
    if MARKER.search(head):
        return "generated"
    return None
