"""A merge queue group's entries: which commits each queued PR put in the group (pure).

GitHub builds a group on `gh-readonly-queue/<base>/pr-<N>-<sha>`, where `<sha>` is the commit
the entry was built on, never PR #N's head (DESIGN.md §5, "Merge queues"); `group_entries`
says how the group's commits are cut into entries.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

_MERGE_SUBJECT = re.compile(r"^Merge pull request #([0-9]{1,9}) from \S")
_SQUASH_SUBJECT = re.compile(r"\(#([0-9]{1,9})\)$")


@dataclass(frozen=True)
class QueueCommit:
    """A commit on the group's first-parent line: its sha, parents, tree and subject."""

    sha: str
    parents: tuple[str, ...]
    tree: str
    subject: str


@dataclass(frozen=True)
class QueueBranch:
    """Another entry's queue branch: its PR, the commit it was built on, and its tip."""

    pr: int
    built_on: str
    tip: str


@dataclass(frozen=True)
class Entry:
    """What one queued PR put in the group: the commits after `start` up to `end`.

    `head` is the PR's head when the entry is one merge commit (its second parent); for the
    squash and rebase methods it is None and the entry's content decides."""

    pr: int
    start: str
    end: str
    tree: str
    commits: tuple[str, ...]
    head: str | None = None
    how: str = "its queue branch"


@dataclass(frozen=True)
class GroupEntries:
    """The group's entries in queue order, the commits already merged, and what is unattributed
    (why, naming the commit), if anything."""

    entries: tuple[Entry, ...]
    merged: tuple[str, ...] = ()
    problem: str | None = None


def group_entries(
    head_sha: str,
    base_sha: str,
    last_pr: int,
    built_on: str,
    commits: Sequence[QueueCommit],
    branches: Sequence[QueueBranch] = (),
    base_tip: str | None = None,
) -> GroupEntries:
    """Cut the group's first-parent line (oldest first, `base_sha` excluded) into entries.

    The group's first-parent line from `base_sha` to its head holds,
    in queue order, what each queued PR adds:

    - the merge method: one merge commit per PR, its second parent the PR's head;
    - the squash method: one commit per PR, its subject ending with `(#N)` by default;
    - the rebase method: the PR's commits replayed, naming no PR.

    The entries are cut from that line, newest first, by what is certain:
    - the commits after `<sha>` are PR #N's (GitHub's own branch name says so);
    - an earlier entry ends at the tip of another queue branch of the same base, and starts at the
      commit that branch names (GitHub keeps a queued entry's branch while it is queued);
    - else at a merge commit `Merge pull request #K from …` (one commit, head the second
      parent) or a one-parent commit whose subject ends with `(#K)` (one commit);
    - commits the base branch already holds were merged (an earlier entry landed meanwhile).

    Anything else cannot be attributed, and the group fails closed naming the commit. A subject only
    says which PR to check: each entry's content is then checked against that PR's approved change
    (`rubricate.bot.merge_queue`), so a subject that lies attributes nothing.
    """
    index = {c.sha: i for i, c in enumerate(commits)}
    if not commits or commits[-1].sha != head_sha or commits[0].parents[:1] != (base_sha,):
        return GroupEntries(
            (), problem=f"the group's commits from {base_sha[:12]} to {head_sha[:12]} are unknown"
        )
    if built_on != base_sha and built_on not in index:
        return GroupEntries(
            (),
            problem=f"#{last_pr}'s queue branch names {built_on[:12]}, which is not on the "
            f"group's first-parent line from {base_sha[:12]}",
        )
    start = index.get(built_on, -1)
    if start == len(commits) - 1:
        return GroupEntries((), problem=f"#{last_pr}'s entry adds no commit")
    entries = [_entry(last_pr, commits, start, len(commits) - 1, "its queue branch", base_sha)]
    merged_until = index.get(base_tip, -1) if base_tip else -1
    tips = {b.tip: b for b in branches if b.pr != last_pr}
    end = start
    while end > merged_until:
        entry = _earlier_entry(commits, end, tips.get(commits[end].sha), index, base_sha)
        if isinstance(entry, str):
            return GroupEntries(tuple(reversed(entries)), problem=entry)
        entries.append(entry)
        end = index.get(entry.start, -1)
    merged = tuple(c.sha for c in commits[: merged_until + 1])
    return GroupEntries(tuple(reversed(entries)), merged=merged)


def _earlier_entry(
    commits: Sequence[QueueCommit],
    end: int,
    branch: QueueBranch | None,
    index: Mapping[str, int],
    base_sha: str,
) -> Entry | str:
    """The entry that ends at `commits[end]`, or why none can be said to."""
    commit = commits[end]
    if branch is not None:
        start = index.get(branch.built_on, -1)
        if start >= end or (start < 0 and branch.built_on != base_sha):
            return (
                f"#{branch.pr}'s queue branch names {branch.built_on[:12]}, which is not "
                f"before {commit.sha[:12]} on the group's first-parent line"
            )
        return _entry(branch.pr, commits, start, end, "its queue branch", base_sha)
    merged = _MERGE_SUBJECT.match(commit.subject)
    if merged and len(commit.parents) == 2:
        return _entry(int(merged[1]), commits, end - 1, end, "its merge commit", base_sha)
    squashed = _SQUASH_SUBJECT.search(commit.subject)
    if squashed and len(commit.parents) == 1:
        return _entry(int(squashed[1]), commits, end - 1, end, "its squash commit", base_sha)
    return (
        f"commit {commit.sha[:12]} ({commit.subject[:40]!r}) names no PR and ends no "
        "queued entry: it is not attributed to an approved PR"
    )


def _entry(
    pr: int, commits: Sequence[QueueCommit], start: int, end: int, how: str, base_sha: str
) -> Entry:
    """The entry of PR #`pr`: the commits after index `start` (-1: the base) up to `end`."""
    own = commits[start + 1 : end + 1]
    first = own[0]
    begin = commits[start].sha if start >= 0 else base_sha
    head = first.parents[1] if len(own) == 1 and len(first.parents) == 2 else None
    return Entry(
        pr=pr,
        start=begin,
        end=commits[end].sha,
        tree=commits[end].tree,
        commits=tuple(c.sha for c in own),
        head=head,
        how=how,
    )
