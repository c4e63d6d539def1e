"""Cutting a merge queue group's first-parent line into entries, one per queued PR."""

from __future__ import annotations

from rubricate.bot.queue_entries import QueueBranch, QueueCommit, group_entries

BASE = "b" * 40


def sha(n: int) -> str:
    return f"{n:040x}"


def line(*subjects: str, merges: tuple[int, ...] = ()) -> list[QueueCommit]:
    """Commits 1..n on BASE, commit i a merge (second parent 100+i) when i is in `merges`."""
    commits, parent = [], BASE
    for i, subject in enumerate(subjects, 1):
        parents = (parent, sha(100 + i)) if i in merges else (parent,)
        commits.append(QueueCommit(sha(i), parents, sha(200 + i), subject))
        parent = sha(i)
    return commits


def test_the_last_entry_is_what_follows_the_commit_its_branch_names() -> None:
    commits = line(
        "Merge pull request #5 from o/a", "Merge pull request #9 from o/b", merges=(1, 2)
    )
    found = group_entries(sha(2), BASE, 9, sha(1), commits)
    assert found.problem is None
    assert [(e.pr, e.start, e.end, e.head) for e in found.entries] == [
        (5, BASE, sha(1), sha(101)),
        (9, sha(1), sha(2), sha(102)),
    ]


def test_rebased_commits_are_cut_by_the_queue_branches() -> None:
    commits = line("one", "two", "three")
    branches = [QueueBranch(5, BASE, sha(2))]
    found = group_entries(sha(3), BASE, 9, sha(2), commits, branches)
    assert found.problem is None
    assert [(e.pr, e.commits, e.head) for e in found.entries] == [
        (5, (sha(1), sha(2)), None),
        (9, (sha(3),), None),
    ]


def test_a_commit_nothing_accounts_for_is_a_problem_naming_it() -> None:
    found = group_entries(sha(3), BASE, 9, sha(2), line("Fix (#5)", "stray", "mine"))
    assert found.problem is not None
    assert sha(2)[:12] in found.problem
    assert "names no PR" in found.problem


def test_a_squash_subject_names_the_last_number_and_a_merge_needs_two_parents() -> None:
    commits = line("Evil (#3) (#6)", "Merge pull request #4 from o/x", "mine")
    found = group_entries(sha(3), BASE, 9, sha(2), commits)
    assert found.problem is not None
    assert sha(2)[:12] in found.problem
    assert [e.pr for e in found.entries] == [9]
    assert [e.pr for e in group_entries(sha(2), BASE, 9, sha(1), commits[:2]).entries] == [6, 9]


def test_a_branch_sha_off_the_line_or_an_empty_entry_fails_closed() -> None:
    commits = line("a", "b")
    off = group_entries(sha(2), BASE, 9, "e" * 40, commits)
    assert off.entries == ()
    assert "not on the group's first-parent line" in (off.problem or "")
    empty = group_entries(sha(2), BASE, 9, sha(2), commits)
    assert "adds no commit" in (empty.problem or "")
    other_base = group_entries(sha(2), "f" * 40, 9, "f" * 40, commits)
    assert "are unknown" in (other_base.problem or "")


def test_commits_the_base_branch_now_holds_were_merged() -> None:
    commits = line("one", "two", "three")
    found = group_entries(sha(3), BASE, 9, sha(2), commits, base_tip=sha(2))
    assert found.problem is None
    assert [e.pr for e in found.entries] == [9]
    assert found.merged == (sha(1), sha(2))


def test_a_queue_branch_built_after_its_tip_is_refused() -> None:
    commits = line("one", "two", "three")
    branches = [QueueBranch(5, sha(2), sha(2))]
    found = group_entries(sha(3), BASE, 9, sha(2), commits, branches)
    assert "#5's queue branch names" in (found.problem or "")


def test_a_pr_named_twice_gets_two_entries_each_checked() -> None:
    commits = line("Work (#5)", "More work (#5)", "mine")
    found = group_entries(sha(3), BASE, 9, sha(2), commits)
    assert [(e.pr, e.commits) for e in found.entries] == [
        (5, (sha(1),)),
        (5, (sha(2),)),
        (9, (sha(3),)),
    ]
