"""Where a head commit lands among a job's versions, and the gate and scores of a merge (pure).

`place_head` puts a head in the current version when the head or the PR's own change is
unchanged, in an older version when the head returns to it, else in a new version. `merge_choice`
is the one rule for a merge, shared by the merge handler (`rubricate.bot.on_pr`) and catch-up
(`rubricate.catchup`): the merged head's version, placed the same way, and that version's
`final_choice`. A merged head that no run recorded and whose change is not known (catch-up reads
no tree) lands in a new version, which no one approved: the merge is `bypassed`.
"""

from __future__ import annotations

from dataclasses import dataclass

from rubricate.bot.jobstate import JobState
from rubricate.bot.standing import FinalChoice, final_choice


@dataclass(frozen=True)
class Bound:
    """What a head's version is bound to: its tree and the digest of the PR's own change."""

    tree_sha: str | None = None
    change_id: str | None = None


@dataclass(frozen=True)
class Placement:
    """Where a head commit lands: its version, whether the version or the head is new, and
    whether an older version becomes current again."""

    version: int
    new_version: bool
    new_head: bool
    reactivated: bool = False

    @property
    def records(self) -> bool:
        """True when placing the head records an event."""
        return self.new_head or self.reactivated


def place_head(job: JobState, head_sha: str, head: Bound) -> Placement:
    """The version of a head: the current one when the head or the PR's own change is unchanged,
    an older one when the head returns to it, else a new one."""
    current = job.current
    if current is None:
        return Placement(1, True, True)
    if head_sha in current.heads:
        return Placement(current.number, False, False)
    if current.holds(head.tree_sha, head.change_id):
        return Placement(current.number, False, True)
    older = job.version_of_head(head_sha) or job.version_of_change(head.tree_sha, head.change_id)
    if older is not None:
        return Placement(older.number, False, head_sha not in older.heads, reactivated=True)
    return Placement(max(v.number for v in job.versions) + 1, True, True)


def merge_choice(job: JobState, head_sha: str, head: Bound) -> tuple[int, FinalChoice]:
    """The version a merged head belongs to, and the gate and scores its merge records."""
    version = place_head(job, head_sha, head).version
    return version, final_choice(job, version)
