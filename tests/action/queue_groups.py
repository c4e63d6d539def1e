"""Merge queue groups built on real git the way GitHub's queue builds them, and their payloads.

Each entry of a queue is built on the previous entry's group commit (the first on the base tip),
with the queue's merge method, and pushed to `refs/heads/gh-readonly-queue/main/pr-<N>-<sha>`
where `<sha>` is the commit the entry was built on, never the PR's head. The payload has the shape
of GitHub's `merge_group` `checks_requested` webhook (octokit/webhooks' example:
`head_ref …/pr-104-929f8209…`, `base_sha 380387fb…`, `head_sha 2ffea6db…`: three commits).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from tests.action.payloads import _repository, _user, pull_request_event
from tests.action.scenario import AUTHOR, MAINTAINER, Scenario, Step, git

Method = Literal["merge", "squash", "rebase"]
METHODS: tuple[Method, ...] = ("merge", "squash", "rebase")
GITHUB = ("GitHub", "noreply@github.com")


@dataclass(frozen=True)
class Group:
    """One queue entry's group: its head, tree, the commit it was built on, and its branch."""

    pr: int
    head_sha: str
    tree: str
    built_on: str
    ref: str


def merge_group_payload(
    head_sha: str,
    tree: str,
    base_sha: str,
    pr: int,
    built_on: str,
    message: str = "",
    base: str = "main",
) -> dict[str, Any]:
    """A `merge_group` `checks_requested` payload as GitHub sends it (for a queue on `base`)."""
    person = {"name": "GitHub", "email": "noreply@github.com"}
    return {
        "action": "checks_requested",
        "merge_group": {
            "head_sha": head_sha,
            "head_ref": f"refs/heads/gh-readonly-queue/{base}/pr-{pr}-{built_on}",
            "base_sha": base_sha,
            "base_ref": f"refs/heads/{base}",
            "head_commit": {
                "id": head_sha,
                "tree_id": tree,
                "message": message or f"Merge pull request #{pr} from octo/feature",
                "timestamp": "2026-03-03T09:00:00Z",
                "author": person,
                "committer": person,
            },
        },
        "repository": _repository(),
        "sender": _user(MAINTAINER),
    }


def build_queue(
    scenario: Scenario,
    method: Method,
    entries: list[tuple[int, str]],
    *,
    push: tuple[int, ...] | None = None,
    base: tuple[str, str] | None = None,
) -> list[Group]:
    """The groups of these (PR, head) entries queued in order on main (or on the branch and
    commit `base` names); each entry's branch is pushed (only those of the PRs in `push`, when
    given)."""
    work = scenario.work
    name, built_on = base or ("main", scenario.base_sha)
    git(work, "checkout", "--quiet", "--detach", built_on)
    groups = []
    for number, head in entries:
        _add_entry(scenario, method, number, head)
        sha = git(work, "rev-parse", "HEAD")
        ref = f"refs/heads/gh-readonly-queue/{name}/pr-{number}-{built_on}"
        if push is None or number in push:
            git(work, "push", "--quiet", "--force", str(scenario.remote), f"HEAD:{ref}")
        tree = git(work, "rev-parse", f"{sha}^{{tree}}")
        groups.append(Group(number, sha, tree, built_on, ref))
        built_on = sha
    git(work, "checkout", "--quiet", "feature")
    return groups


def _add_entry(scenario: Scenario, method: Method, number: int, head: str) -> None:
    work = scenario.work
    if method == "merge":
        message = f"Merge pull request #{number} from octo/f{number}\n\nx"
        git(work, "merge", "--quiet", "--no-ff", "-m", message, head)
    elif method == "squash":
        git(work, "merge", "--quiet", "--squash", head)
        git(work, "commit", "--quiet", "-m", f"Change for #{number} (#{number})")
    else:
        base = git(work, "merge-base", "HEAD", head)
        # GitHub commits a rebased entry as itself, so each replayed commit is a new one.
        git(work, "cherry-pick", "--allow-empty", f"{base}..{head}", committer=GITHUB)


def deliver(scenario: Scenario, group: Group) -> Step:
    """Deliver the `merge_group` event of one group."""
    payload = merge_group_payload(
        group.head_sha, group.tree, scenario.base_sha, group.pr, group.built_on
    )
    return scenario.deliver("merge_group", "merge_group", payload)


def pushed_commit(
    scenario: Scenario, local: str, start: str, files: dict[str, str], message: str, ref: str
) -> str:
    """One commit of these files on a local branch from `start`, pushed to `ref`; its sha (the
    scenario's `feature` branch checked out again after)."""
    work = scenario.work
    git(work, "checkout", "--quiet", "-B", local, start)
    for path, text in files.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(text)
    git(work, "add", "-A")
    git(work, "commit", "--quiet", "-m", message)
    sha = git(work, "rev-parse", "HEAD")
    git(work, "push", "--quiet", "--force", str(scenario.remote), f"HEAD:{ref}")
    git(work, "checkout", "--quiet", "feature")
    return sha


def other_pr(scenario: Scenario, number: int, path: str, text: str) -> str:
    """Another PR, branched from main with one commit, pushed to `refs/pull/N/head` and opened."""
    head = pushed_commit(
        scenario,
        f"pr{number}",
        scenario.base_sha,
        {path: text},
        f"Work of #{number}",
        f"refs/pull/{number}/head",
    )
    payload = pull_request_event(
        "opened",
        number=number,
        author=AUTHOR,
        head_sha=head,
        base_sha=scenario.base_sha,
        created=scenario.clock,
        at=scenario.tick(),
    )
    step = scenario.deliver(f"pull_request opened #{number}", "pull_request_target", payload)
    assert step.code == 0, step.log
    return head


def comment_on(scenario: Scenario, number: int, actor: str, body: str) -> Step:
    """A comment on another PR than the scenario's; it must succeed."""
    step = scenario.comment(actor, body, number=number)
    assert step.code == 0, step.log
    return step
