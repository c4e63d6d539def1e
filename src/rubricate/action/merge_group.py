"""A merge queue group's run: gather its commits, queue branches, jobs and merged trees (shell).

The run works in a private bare repository fed from the repository's remote. It fetches the
group's base and head, reads the first-parent line between them (sha, parents, tree, subject),
lists the base branch and its queue branches (`git ls-remote`), reads the jobs of the PRs the
entries name from the data branch, and for each approved head of each entry writes the tree git's
three-way merge of the entry's start with that head gives. `rubricate.bot.queue_entries` and
`rubricate.bot.merge_queue` decide; this module only reads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rubricate.action import inputs
from rubricate.bot.jobstate import JobState, job_state
from rubricate.bot.merge_queue import group_status, heads_to_check, queue_branches
from rubricate.bot.queue_entries import Entry, GroupEntries, QueueCommit, group_entries
from rubricate.bot.view_state import PullState
from rubricate.config import data_branch_problem
from rubricate.errors import ConfigError, RubricateError
from rubricate.gitio.refs import first_parents, merged_tree
from rubricate.gitio.workspace import fetch_commits, remote_refs

if TYPE_CHECKING:
    from rubricate.action.ports import Reader
    from rubricate.bot.effects import Effect
    from rubricate.bot.events import MergeGroupEvent
    from rubricate.ledger.event import Event

MAX_HEADS_PER_ENTRY = 10


JobsReader = Callable[[str, Sequence[int], str], "tuple[Event, ...]"]
"""(repository, PR numbers, data branch) → the events of those jobs."""


def merge_group_effects(
    reader: Reader, event: MergeGroupEvent, payload: Mapping[str, Any], read_jobs: JobsReader
) -> list[Effect]:
    """The one status that says whether every commit of the group is an approved PR's change."""
    pull = PullState(base_sha=event.base_sha, base_ref=event.base_ref, head_sha=event.head_sha)
    fetched = inputs.fetch(reader, pull, with_head=True) is not None
    default_branch = inputs.default_branch(payload)
    at = inputs.config_commit(reader, pull, default_branch, fetched)
    config = inputs.read_config(reader, at).for_base(event.base_ref)
    branch = reader.settings.data_branch or config.data_branch
    problem = data_branch_problem(branch, default_branch, event.base_ref)
    if problem is not None:
        raise ConfigError(problem)
    grouped = (
        read_entries(reader, event)
        if fetched
        else GroupEntries((), problem="git is off: the group's commits were not read")
    )
    prs = list(dict.fromkeys(e.pr for e in grouped.entries))
    events = read_jobs(event.repo, prs, branch)
    jobs = {pr: job_state(events, event.repo, pr) for pr in prs}
    trees = entry_trees(reader, grouped.entries, jobs)
    return [*group_status(event, grouped, jobs, trees)]


def read_entries(reader: Reader, event: MergeGroupEvent) -> GroupEntries:
    """The group's entries, cut from its first-parent line and the remote's queue branches."""
    commits = [
        QueueCommit(*c) for c in first_parents(reader.repo_dir, event.base_sha, event.head_sha)
    ]
    base = f"refs/heads/{event.base_ref}"
    refs = remote_refs(
        reader.settings.repo_remote,
        [base, f"refs/heads/gh-readonly-queue/{event.base_ref}/*"],
        token=reader.settings.token,
    )
    reader.runtime.log(
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
    reader: Reader, entries: Sequence[Entry], jobs: Mapping[int, JobState]
) -> dict[tuple[str, str], str | None]:
    """For each entry and each approved head to check, the tree of the start merged with it."""
    trees: dict[tuple[str, str], str | None] = {}
    for entry in entries:
        heads = heads_to_check(entry, jobs[entry.pr])
        for head in heads[-MAX_HEADS_PER_ENTRY:]:
            if (entry.start, head) not in trees:
                trees[(entry.start, head)] = _merged(reader, entry.start, head)
    return trees


def _merged(reader: Reader, start: str, head: str) -> str | None:
    """The merge of `start` with a PR head, fetched first; None when it cannot be computed."""
    try:
        fetch_commits(
            reader.settings.repo_remote, start, head, reader.repo_dir, token=reader.settings.token
        )
    except RubricateError as exc:
        reader.runtime.log(f"merge group: head {head[:12]} could not be fetched: {exc}")
        return None
    return merged_tree(reader.repo_dir, start, head)
