"""A merge queue's group: its payload, each entry's check, and the group's one status (pure).

The rule is DESIGN.md §5 ("Merge queues"); `rubricate.bot.queue_entries` cuts the group's
commits into one entry per queued PR, and `group_status` says when the group is green.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rubricate.bot.effects import Log, SetStatus, StatusState
from rubricate.bot.events import Ignored, MergeGroupEvent
from rubricate.bot.gate import status_text
from rubricate.bot.jobstate import JobState
from rubricate.bot.queue_entries import Entry, GroupEntries, QueueBranch
from rubricate.errors import PayloadError
from rubricate.gitnames import ref_error, sha_error

QUEUE_REF = re.compile(
    r"^refs/heads/gh-readonly-queue/(?P<base>.+)/pr-(?P<pr>[0-9]{1,9})-(?P<sha>[0-9a-f]{40}|[0-9a-f]{64})$"
)
Trees = Mapping[tuple[str, str], str | None]
"""(entry start, PR head) → the tree of the start merged with the head (None: not computable)."""
Changes = Mapping[str, str | None]
"""PR head → the id of its change against the group's base (None: not computable)."""


def parse_merge_group(payload: Mapping[str, Any]) -> MergeGroupEvent | Ignored:
    """The group from a `merge_group` payload; `destroyed` and other actions are ignored."""
    action = payload.get("action")
    if action != "checks_requested":
        return Ignored(f"merge_group action {action!r} needs no check")
    group = payload.get("merge_group")
    repository = payload.get("repository")
    if not isinstance(group, Mapping) or not isinstance(repository, Mapping):
        raise PayloadError("webhook payload: `merge_group` or `repository` is missing")
    for field in ("head_sha", "base_sha"):
        problem = sha_error(group.get(field), f"merge_group.{field}")
        if problem:
            raise PayloadError(f"webhook payload: {problem}")
    head_ref, base_ref = group.get("head_ref"), group.get("base_ref")
    found = QUEUE_REF.match(head_ref) if isinstance(head_ref, str) else None
    if found is None:
        raise PayloadError(
            "webhook payload: `merge_group.head_ref` is not a merge queue branch "
            f"(refs/heads/gh-readonly-queue/<base>/pr-<N>-<sha>): {str(head_ref)[:200]!r}"
        )
    base = found["base"]
    if ref_error(base, "merge_group base") or base_ref != f"refs/heads/{base}":
        raise PayloadError(
            f"webhook payload: `merge_group.base_ref` {str(base_ref)[:200]!r} "
            f"does not match the queue branch's base {base!r}"
        )
    return MergeGroupEvent(
        repo=str(repository.get("full_name") or ""),
        head_sha=str(group["head_sha"]),
        base_sha=str(group["base_sha"]),
        base_ref=base,
        last_pr=int(found["pr"]),
        built_on=found["sha"],
    )


def queue_branches(base: str, refs: Mapping[str, str]) -> list[QueueBranch]:
    """The queue branches of `base` among `refs` (ref name → tip), as entries to cut by."""
    found = []
    for name, tip in refs.items():
        match = QUEUE_REF.match(name)
        if match and match["base"] == base:
            found.append(QueueBranch(int(match["pr"]), match["sha"], tip))
    return found


def approved_heads(job: JobState) -> tuple[str, ...]:
    """The heads of the job's current version when that version's gate is green, else none."""
    current = job.current
    if job.merged or current is None or _approval_problem(job) is not None:
        return ()
    return current.heads


def heads_to_check(entry: Entry, job: JobState) -> tuple[str, ...]:
    """The PR heads whose merge onto the entry's start may give the entry's tree."""
    heads = approved_heads(job)
    if entry.head is not None:
        return (entry.head,) if entry.head in heads else ()
    return heads


def same_change(job: JobState, changes: Changes, head: str) -> bool:
    """Whether the head's change against the group's base is the change its version approved.

    A version records its change bound to the base it was approved on (`rubricate.bot.binding`);
    against another base (a retarget not yet recorded, a PR approved into another branch) the
    head is another change, which no one approved here, even when its diff is the same.
    `changes` holds the recorded id for a head whose change on the group's base is the one its
    version recorded, also when it brings only part of it from an earlier fork point on this
    base (a stacked PR whose ancestors landed: `rubricate.gitio.read.approved_earlier`). A
    version recorded before changes were bound to a base keeps its diff digest, compared as it
    always was; one recorded before changes were (no `change_id`) is taken by its heads alone."""
    current = job.current
    if current is None or current.change_id is None:
        return True
    return changes.get(head) == current.change_id


def entry_problem(
    entry: Entry, job: JobState, trees: Trees, changes: Changes | None = None
) -> str | None:
    """Why this entry is not PR #N's approved change (None when it is)."""
    if job.merged:
        return "already merged, yet its entry is not on the base"
    current = job.current
    if current is None:
        return "not in the ledger"
    approval = _approval_problem(job)
    if approval is not None:
        return approval
    if entry.head is not None and entry.head not in current.heads:
        version = job.version_of_head(entry.head)
        where = f"v{version.number}" if version else f"head {entry.head[:7]}"
        return f"{where} is not the current change (v{current.number})"
    heads = heads_to_check(entry, job)
    same = [head for head in heads if same_change(job, changes or {}, head)]
    if heads and not same:
        if all((changes or {}).get(head, "") is None for head in heads):
            return f"head {heads[-1][:12]} could not be fetched: its change cannot be checked"
        return (
            f"head {heads[-1][:12]} changes this base otherwise than the approved change "
            f"v{current.number} (approved against another base?)"
        )
    if not any(trees.get((entry.start, head)) == entry.tree for head in same):
        return (
            f"commit {entry.end[:12]} ({entry.how}) does not hold the approved change "
            f"v{current.number}"
        )
    return None


def _approval_problem(job: JobState) -> str | None:
    current = job.current
    if current is None:
        return "not in the ledger"
    approval = job.approval
    if approval is None:
        return f"v{current.number} is not approved"
    if approval.override is None and approval.verdict != "pass":
        return f"v{current.number} failed the rubric"
    return None


def group_status(
    event: MergeGroupEvent,
    grouped: GroupEntries,
    jobs: Mapping[int, JobState],
    trees: Trees,
    changes: Changes | None = None,
) -> list[SetStatus | Log]:
    """The group's `rubricate/approval` status, and a log line naming every PR.

    `rubricate/approval` on the group's head is success only when every commit from the base to
    the head is attributed to a PR whose current change is approved (a passing verdict or an
    override), and each entry holds exactly that approved change: the base of the entry merged
    with one of the approved version's heads (its second parent, for a merge commit) gives the
    entry's tree, and that head's change against the group's base is the approved change (not
    one approved against another base). Anything else fails closed, naming the commit or the PR
    and why. A queue run appends no ledger event.
    """
    problems = [(e.pr, entry_problem(e, jobs[e.pr], trees, changes)) for e in grouped.entries]
    bad = [f"#{pr}: {why}" for pr, why in problems if why is not None]
    if grouped.problem is not None:
        bad.insert(0, grouped.problem)
    names = ", ".join(f"#{e.pr}" for e in grouped.entries)
    state: StatusState = "failure" if bad or not grouped.entries else "success"
    text = status_text("merge queue: " + ("; ".join(bad) if bad else f"{names} approved"))
    log = Log(
        f"merge group {event.head_sha[:12]} on {event.base_ref}: {names or 'no entry'}",
        {
            "problems": bad,
            "entries": {f"#{e.pr}": list(e.commits) for e in grouped.entries},
            "merged": list(grouped.merged),
        },
    )
    return [log, SetStatus(sha=event.head_sha, state=state, description=text)]
