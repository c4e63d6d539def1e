"""A merge queue group's run: gather its commits, queue branches, jobs and merged trees (shell).

The run works in a private bare repository fed from the repository's remote. It fetches the
group's base and head, reads the first-parent line between them (sha, parents, tree, subject),
lists the base branch and its queue branches (`git ls-remote`), reads the jobs of the PRs the
entries name from the data branch, and for each approved head of each entry writes the tree git's
three-way merge of the entry's start with that head gives, and reads that head's change against
the group's base. `rubricate.bot.queue_entries` and
`rubricate.bot.merge_queue` decide; this module only reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from typing import Any

from rubricate.action.data_branch import jobs_events
from rubricate.action.handles import RunHandles
from rubricate.action.pull import config_commit, fetch, read_config
from rubricate.action.settings import data_branch
from rubricate.bot.binding import Bound
from rubricate.bot.effects import Effect
from rubricate.bot.events import MergeGroupEvent
from rubricate.bot.jobstate import JobState, job_state
from rubricate.bot.merge_queue import group_status, heads_to_check, queue_branches
from rubricate.bot.payload import default_branch
from rubricate.bot.queue_entries import Entry, GroupEntries, QueueCommit, group_entries
from rubricate.bot.view_state import PullState
from rubricate.errors import RubricateError
from rubricate.gitio.read import approved_earlier, change_of
from rubricate.gitio.refs import first_parents, merged_tree
from rubricate.gitio.workspace import fetch_commits, remote_refs

MAX_HEADS_PER_ENTRY = 10


def merge_group_effects(
    handles: RunHandles, event: MergeGroupEvent, payload: Mapping[str, Any], stack: ExitStack
) -> list[Effect]:
    """The one status that says whether every commit of the group is an approved PR's change."""
    pull = PullState(base_sha=event.base_sha, base_ref=event.base_ref, head_sha=event.head_sha)
    fetched = fetch(handles, pull, with_head=True) is not None
    default = default_branch(payload)
    at = config_commit(handles, pull, default, fetched)
    config = read_config(handles, at).for_base(event.base_ref)
    branch = data_branch(handles.settings, config, default_branch=default, base_ref=event.base_ref)
    grouped = (
        read_entries(handles, event)
        if fetched
        else GroupEntries((), problem="git is off: the group's commits were not read")
    )
    prs = list(dict.fromkeys(e.pr for e in grouped.entries))
    events = jobs_events(handles, event.repo, prs, branch, stack)
    jobs = {pr: job_state(events, event.repo, pr) for pr in prs}
    trees, changes = entry_trees(handles, event, grouped.entries, jobs)
    return [*group_status(event, grouped, jobs, trees, changes)]


def read_entries(handles: RunHandles, event: MergeGroupEvent) -> GroupEntries:
    """The group's entries, cut from its first-parent line and the remote's queue branches."""
    commits = [
        QueueCommit(*c) for c in first_parents(handles.repo_dir, event.base_sha, event.head_sha)
    ]
    base = f"refs/heads/{event.base_ref}"
    refs = remote_refs(
        handles.settings.repo_remote,
        [base, f"refs/heads/gh-readonly-queue/{event.base_ref}/*"],
        token=handles.settings.token,
    )
    handles.runtime.log(
        f"merge group: {len(commits)} commit(s) from {event.base_sha[:12]}, "
        f"{len(refs)} branch(es) listed"
    )
    return group_entries(
        event.head_sha,
        event.base_sha,
        event.last_pr,
        event.built_on,
        commits,
        queue_branches(event.base_ref, refs),
        refs.get(base),
    )


def entry_trees(
    handles: RunHandles,
    event: MergeGroupEvent,
    entries: Sequence[Entry],
    jobs: Mapping[int, JobState],
) -> tuple[dict[tuple[str, str], str | None], dict[str, str | None]]:
    """For each entry and each approved head to check, the tree of the start merged with it;
    and each such head's change against the group's base (its merge base with it to it)."""
    trees: dict[tuple[str, str], str | None] = {}
    changes: dict[str, str | None] = {}
    for entry in entries:
        heads = heads_to_check(entry, jobs[entry.pr])
        for head in heads[-MAX_HEADS_PER_ENTRY:]:
            if head not in changes:
                changes[head] = _change(handles, event, head, jobs[entry.pr])
            if (entry.start, head) not in trees:
                fetched = _fetched(handles, entry.start, head) is not None
                trees[(entry.start, head)] = (
                    merged_tree(handles.repo_dir, entry.start, head) if fetched else None
                )
    return trees, changes


def _change(handles: RunHandles, event: MergeGroupEvent, head: str, job: JobState) -> str | None:
    """The head's change against the group's base (None when it cannot be fetched): the change
    id its version recorded when that is this change on the group's base branch (bound to it:
    `rubricate.bot.binding`), also when the head brings only part of it (a stacked PR whose
    ancestors landed); else the diff digest, which no bound id equals."""
    fork = _fetched(handles, event.base_sha, head)
    if fork is None:
        return None
    change = change_of(handles.repo_dir, fork, head)
    approved = job.current.change_id if job.current else None
    if approved is None:
        return change
    recorded = Bound(change_id=change, base_ref=event.base_ref)
    if recorded.holds(approved):
        return approved
    earlier = approved_earlier(
        handles.repo_dir,
        fork,
        head,
        lambda earlier_id: Bound(change_id=earlier_id, base_ref=event.base_ref).holds(approved),
    )
    return approved if earlier else change


def _fetched(handles: RunHandles, start: str, head: str) -> str | None:
    """Fetch `start` and a PR head: their merge base, or None when they cannot be fetched."""
    try:
        return fetch_commits(
            handles.settings.repo_remote,
            start,
            head,
            handles.repo_dir,
            token=handles.settings.token,
        )
    except RubricateError as exc:
        handles.runtime.log(f"merge group: head {head[:12]} could not be fetched: {exc}")
        return None
