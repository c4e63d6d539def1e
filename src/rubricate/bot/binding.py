"""What a version is bound to: the head's tree, and the PR's own change bound to its base (pure).

A version records the change it holds as `change_id`. The diff digest alone
(`rubricate.gitio.read.change_digest`, "diff-raw-sha256:...") is the same against two bases
when the PR forks from a commit both hold, so a version approved under one base's rules would
hold the same change on another. The bot therefore records `base_change(base_ref, diff id)`,
a digest of the base branch's name and the diff digest: a change on `main` is never the change
a version recorded on `release-1` holds. `same_change` is the one comparison of a recorded id
with a head's change on a base; a version recorded before the base was bound (an old-style
id) keeps its old meaning: it is compared with the diff digest, the base not bound.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

BASE_CHANGE = "base-change-sha256:"


def base_change(base_ref: str, change_id: str) -> str:
    """The id a version records for a change (`change_id`, the diff digest) on `base_ref`."""
    digest = hashlib.sha256(f"{base_ref}\0{change_id}".encode()).hexdigest()
    return BASE_CHANGE + digest


def same_change(recorded: str, base_ref: str | None, change_id: str) -> bool:
    """Whether a version's recorded change id is this change on this base (an old-style id
    is compared with the diff digest alone; a bound one needs the base)."""
    if recorded.startswith(BASE_CHANGE):
        return base_ref is not None and recorded == base_change(base_ref, change_id)
    return recorded == change_id


@dataclass(frozen=True)
class Bound:
    """A head's tree, the digest of the PR's own change (`change_id`, None when git was off)
    and the base branch it is a change to."""

    tree_sha: str | None = None
    change_id: str | None = None
    base_ref: str | None = None

    @property
    def recorded(self) -> str | None:
        """The change id a new version of this head records (the change bound to its base)."""
        if self.change_id is None or self.base_ref is None:
            return self.change_id
        return base_change(self.base_ref, self.change_id)

    def holds(self, recorded: str | None) -> bool:
        """Whether a version that recorded this change id holds this head's change."""
        if recorded is None or self.change_id is None:
            return False
        return same_change(recorded, self.base_ref, self.change_id)

    def on_base(self, recorded: str | None) -> bool:
        """Whether a version's change id binds this head's change to this very base (an
        old-style id does not: it says nothing of its base)."""
        return recorded is not None and recorded.startswith(BASE_CHANGE) and self.holds(recorded)
