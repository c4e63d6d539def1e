"""The PR's change as a handler sees it (shell: git and API reads): the snapshot from the merge
base to the head, the issues the PR links (its spec and deadline), and the head's score
(automatic evidence, then the judge when a key is set; graders never run here).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from rubricate.action.handles import RunHandles
from rubricate.bot.events import PullRequestEvent
from rubricate.bot.visible import IssueRef, linked_issues, same_repo
from rubricate.config import Config
from rubricate.evidence.results import ScoreReport
from rubricate.evidence.snapshot import Snapshot
from rubricate.gitio.read import read_snapshot
from rubricate.gitio.refs import BaseTree
from rubricate.gitio.workspace import tree_of
from rubricate.judge.service import judge_report
from rubricate.rubric.model import Rubric

if TYPE_CHECKING:  # the adapter loads PyGithub: a dry run without a token never needs it
    from rubricate.github.client import IssueInfo

MAX_LINKED_ISSUES = 3


def snapshot(
    handles: RunHandles, event: PullRequestEvent, merge_base: str | None, spec: str, config: Config
) -> Snapshot:
    """The change from the merge base to the head, with schemas read at the base commit."""
    # The schema checks load jsonschema and its format packages (a few tenths of a second):
    # only a run that reads a change loads them (comments, reviews and ignored events never do).
    from rubricate.evidence.deliverable_schemas import schema_paths
    from rubricate.evidence.format_check import read_limit

    if merge_base is None:
        handles.runtime.log("no git reads: scoring an empty change built from the payload")
        return Snapshot(
            base_sha=event.base_sha,
            head_sha=event.head_sha,
            repo=event.repo,
            title=event.title,
            body=event.body,
            spec=spec,
        )
    snap = read_snapshot(
        handles.repo_dir,
        merge_base,
        event.head_sha,
        title=event.title,
        body=event.body,
        spec=spec,
        read_limit=read_limit(config),
    )
    schemas = BaseTree(handles.repo_dir, event.base_sha)
    for path in schema_paths(config):
        schemas.get(path)
    return dataclasses.replace(snap, base_files=schemas, repo=event.repo)


def head_only(handles: RunHandles, event: PullRequestEvent, fetched: bool) -> Snapshot | None:
    """A snapshot that only names the head tree (what a closed event needs)."""
    if not fetched:
        return None
    tree = tree_of(handles.repo_dir, event.head_sha)
    return Snapshot(
        base_sha=event.base_sha, head_sha=event.head_sha, head_tree=tree, repo=event.repo
    )


def linked(handles: RunHandles, event: PullRequestEvent) -> list[IssueInfo]:
    """The issues of this repository the PR body closes (at most three), read through the API.

    Issues of other repositories are logged and ignored: their text and milestones are written
    by people who have no say over this repository, so they set neither the spec nor a deadline.
    """
    server_url = handles.settings.server_url
    refs, elsewhere = same_repo(
        linked_issues(event.body, event.repo, server_url=server_url), event.repo
    )
    log = handles.runtime.log
    if elsewhere:
        log(f"linked issues of other repositories ignored (spec, deadline): {_names(elsewhere)}")
    if not refs:
        return []
    if handles.api is None:
        log(f"linked issues {_names(refs)} not read (no token)")
        return []
    if len(refs) > MAX_LINKED_ISSUES:
        log(f"only the first {MAX_LINKED_ISSUES} linked issues are read as the spec")
    found = [handles.api.issue(ref) for ref in refs[:MAX_LINKED_ISSUES]]
    return [info for info in found if info is not None]


def _names(refs: list[IssueRef]) -> str:
    return ", ".join(map(str, refs))


def score_head(handles: RunHandles, snap: Snapshot, rubric: Rubric, config: Config) -> ScoreReport:
    """Automatic evidence, then the judge when a key is configured (graders never run here)."""
    from rubricate.evidence.autoscore import auto_score  # jsonschema, as in `snapshot`

    report = auto_score(snap, rubric, config)
    settings = handles.settings
    return judge_report(
        report,
        snap,
        config.judge,
        mode="auto",
        model=settings.model,
        env=settings.judge_env(),
        cache_dir=settings.judge_cache_dir,
    )
