"""Where a head commit lands among a job's versions, and the gate and scores of a merge (pure).

`place_head` puts a head in the current version when the PR's own change on its base is
unchanged, in an older version when the head returns to it, else in a new version; `retarget`
places the head of a PR that moved to another base. What a version is bound to is
`rubricate.bot.binding`'s. `merge_choice`
is the one rule for a merge, shared by the merge handler (`rubricate.bot.on_pr`) and catch-up
(`rubricate.bot.catch_up`): the merged head's version, placed the same way, and that version's
`final_choice`. A merged head that no run recorded and whose change is not known (catch-up reads
no tree) lands in a new version, which no one approved: the merge is `bypassed`; so does one
known by its commit only in versions recorded before the PR's latest retarget
(`JobState.version_of`).
"""

from __future__ import annotations

from dataclasses import dataclass

from rubricate.bot.binding import Bound
from rubricate.bot.jobstate import JobState
from rubricate.bot.standing import FinalChoice, final_choice


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
    """The version of a head: the current one when it holds the head's change on the head's
    base (or, the change not known, the head or its tree), an older one when the head returns
    to it, else a new one. A head commit recorded in a version under another base is not that
    version's (its change is bound to the old base): it opens a new version."""
    current = job.current
    if current is None:
        return Placement(1, True, True)
    version = job.version_of(head_sha, head)
    if version is None:
        return Placement(max(v.number for v in job.versions) + 1, True, True)
    again = version.number != current.number
    return Placement(version.number, False, head_sha not in version.heads, reactivated=again)


def retarget(job: JobState, head_sha: str, head: Bound) -> Placement:
    """The version of a head whose PR moved to another base: a new one, unless the current
    version already holds this head's change bound to this base (the retarget was recorded:
    a re-run or a redelivery of its run), which it keeps."""
    current = job.current
    if current is not None and head_sha in current.heads and head.on_base(current.change_id):
        return Placement(current.number, False, False)
    return Placement(max((v.number for v in job.versions), default=0) + 1, True, True)


def merge_choice(job: JobState, head_sha: str, head: Bound) -> tuple[int, FinalChoice]:
    """The version a merged head belongs to, and the gate and scores its merge records."""
    version = place_head(job, head_sha, head).version
    return version, final_choice(job, version)
