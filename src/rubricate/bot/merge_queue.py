"""A merge queue's group: which PRs it holds and whether each has a green gate (pure).

GitHub's merge queue tests a temporary commit, `merge_group.head_sha`, on a branch named
`gh-readonly-queue/<base>/pr-<N>-<head sha>`: it holds the base plus every PR queued up to and
including #N. The PRs come from two places:
- the branch name names the last PR and its head;
- the commits from the group's base to its head, along the first parent, name the rest: a merge
  commit `Merge pull request #N from …` (its second parent is the PR's head) or a squash commit
  whose subject ends with `(#N)`. A commit that names no PR (the rebase method) is counted as
  part of the next PR that is named.

`rubricate/approval` on the group's head is success only when every PR has a green gate on its
current change in the ledger: its head (when known) belongs to the job's current version, and
that version is approved (a passing verdict or an override). Anything else is a failure that names
the PRs and why. A queue run appends no ledger event.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rubricate.bot.effects import Log, SetStatus, StatusState
from rubricate.bot.events import Ignored, MergeGroupEvent
from rubricate.errors import PayloadError
from rubricate.gitnames import ref_error, sha_error

if TYPE_CHECKING:
    from rubricate.bot.jobstate import JobState

QUEUE_REF = re.compile(
    r"^refs/heads/gh-readonly-queue/(?P<base>.+)/pr-(?P<pr>[0-9]{1,9})-(?P<sha>[0-9a-f]{40}|[0-9a-f]{64})$"
)
_MERGE_SUBJECT = re.compile(r"^Merge pull request #([0-9]{1,9}) from \S")
_SQUASH_SUBJECT = re.compile(r"\(#([0-9]{1,9})\)$")
STATUS_LIMIT = 140


@dataclass(frozen=True)
class QueueCommit:
    """A commit on the group's first-parent line: its sha, parents and subject."""

    sha: str
    parents: tuple[str, ...]
    subject: str


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
        last_head=found["sha"],
    )


def group_prs(event: MergeGroupEvent, commits: Sequence[QueueCommit]) -> dict[int, str | None]:
    """Every PR in the group, in queue order, with its head when the commits tell it."""
    prs: dict[int, str | None] = {}
    for commit in commits:
        merged = _MERGE_SUBJECT.match(commit.subject)
        squashed = _SQUASH_SUBJECT.search(commit.subject)
        if merged and len(commit.parents) == 2:
            prs.setdefault(int(merged[1]), commit.parents[1])
        elif squashed:
            prs.setdefault(int(squashed[1]), None)
    prs.pop(event.last_pr, None)
    prs[event.last_pr] = event.last_head
    return prs


def pr_problem(job: JobState, head: str | None) -> str | None:
    """Why this PR's gate is not green on its current change (None when it is)."""
    if job.merged:
        return None
    current = job.current
    if current is None:
        return "not in the ledger"
    if head is not None and head not in current.heads:
        version = job.version_of_head(head)
        where = f"v{version.number}" if version else f"head {head[:7]}"
        return f"{where} is not the current change (v{current.number})"
    approval = job.approval
    if approval is None:
        return f"v{current.number} is not approved"
    if approval.override is None and approval.verdict != "pass":
        return f"v{current.number} failed the rubric"
    return None


def group_status(
    event: MergeGroupEvent, prs: Mapping[int, str | None], jobs: Mapping[int, JobState]
) -> list[SetStatus | Log]:
    """The group's `rubricate/approval` status, and a log line naming every PR."""
    problems = {pr: pr_problem(jobs[pr], head) for pr, head in prs.items()}
    bad = {pr: why for pr, why in problems.items() if why is not None}
    names = ", ".join(f"#{pr}" for pr in prs)
    state: StatusState = "failure" if bad else "success"
    reasons = "; ".join(f"#{pr}: {why}" for pr, why in bad.items())
    text = f"merge queue: {reasons}" if bad else f"merge queue: {names} approved"
    if len(text) > STATUS_LIMIT:
        text = text[: STATUS_LIMIT - 1] + "…"
    log = Log(f"merge group {event.head_sha[:12]} on {event.base_ref}: {names}", {"problems": bad})
    return [log, SetStatus(sha=event.head_sha, state=state, description=text)]
