"""The order of one run's reads, from the event to the handler's inputs (shell).

First the PR is located (`locate`): the payload names its base and head, else the view state
the last PR event left on the data branch does, else the API. Then (`gather`) its commits are
fetched, config and rubric read at the config commit, the job read from the data branch and
folded once, and what the event needs beyond that: the commenter's role, or the change, its
linked issues and its score. The reads themselves are in `pull`, `data_branch`, `change` and
`role`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rubricate.action.change import head_only, linked, score_head, snapshot
from rubricate.action.data_branch import StoredJob, open_job
from rubricate.action.handles import RunHandles
from rubricate.action.pull import config_commit, fetch_pull, pull_from_api, read_config, read_rubric
from rubricate.action.role import actor_role
from rubricate.action.settings import data_branch
from rubricate.bot.events import (
    CommentEvent,
    GradersEvent,
    HandlerContext,
    JobEvent,
    PullRequestEvent,
    ReviewEvent,
)
from rubricate.bot.jobstate import JobState, job_state
from rubricate.bot.payload import default_branch, pull_from_payload, spec_text
from rubricate.bot.view_state import PullState
from rubricate.bot.visible import reverted_pr
from rubricate.evidence.snapshot import Snapshot
from rubricate.ledger.deadline import deadline


@dataclass(frozen=True)
class Located:
    """The PR's base and head (None when nothing says), and its job when read to find them."""

    pull: PullState | None
    stored: StoredJob | None = None


@dataclass(frozen=True)
class Gathered:
    """The handler's inputs, and what the shell needs to apply its effects."""

    pull: PullState | None
    stored: StoredJob
    snapshot: Snapshot | None
    job: JobState
    context: HandlerContext

    @property
    def head_sha(self) -> str | None:
        """The head commit the views belong to, when known."""
        return self.pull.head_sha if self.pull else None


def locate(
    handles: RunHandles, event: JobEvent, payload: Mapping[str, Any], stack: ExitStack
) -> Located:
    """The PR's base and head: from the payload, else the stored view state, else the API."""
    pull = pull_from_payload(event, payload)
    if pull is not None:
        return Located(pull)
    branch = data_branch(handles.settings)
    stored = open_job(handles, event.repo, event.number, branch, stack)
    return Located(stored.views.pull or pull_from_api(handles, event.number), stored)


def gather(
    handles: RunHandles,
    event: JobEvent,
    payload: Mapping[str, Any],
    located: Located,
    stack: ExitStack,
    now: datetime,
) -> Gathered:
    """Config, rubric, job, snapshot and context for `event`, on the PR `locate` found."""
    pull = located.pull
    merge_base, fetched = fetch_pull(handles, event, pull)
    default = default_branch(payload)
    command = isinstance(event, CommentEvent | ReviewEvent)
    at = config_commit(handles, pull, default, fetched, tip=command) if pull else None
    base_ref = pull.base_ref if pull else None
    config = read_config(handles, at).for_base(base_ref)
    rubric = read_rubric(handles, at, config)
    branch = data_branch(handles.settings, config, default_branch=default, base_ref=base_ref)
    reverts = reverted_pr(event) if isinstance(event, PullRequestEvent) and event.merged else None
    stored = located.stored
    # a run with its own store (the worker's database) reads the same one whatever the branch
    if stored is None or (handles.store is None and stored.store.branch != branch):
        stored = open_job(handles, event.repo, event.number, branch, stack, reverts)
    stored.store.config = config.reputation
    settings = handles.settings
    context = HandlerContext(
        repo=event.repo,
        config=config,
        rubric=rubric,
        now=now,
        run_id=settings.run_id,
        first_attempt=settings.run_attempt == 1,
    )
    job = stored.job(event.repo, event.number)
    snap, context = _for_event(handles, event, merge_base, context, stored, reverts)
    return Gathered(pull, stored, snap, job, context)


def _for_event(
    handles: RunHandles,
    event: JobEvent,
    merge_base: str | None,
    context: HandlerContext,
    stored: StoredJob,
    reverts: int | None,
) -> tuple[Snapshot | None, HandlerContext]:
    """What the event needs beyond the job: the commenter's role for commands; the head's tree,
    deadline and the job a revert undoes for a close; the change and its score for a push
    (a review's dismissal needs nothing more: it takes back, whoever dismissed)."""
    config = context.config
    if isinstance(event, GradersEvent) or (isinstance(event, ReviewEvent) and event.dismissed):
        return None, context
    if not isinstance(event, PullRequestEvent):
        role, problem = actor_role(handles, event, config)
        return None, dataclasses.replace(context, actor_role=role, role_problem=problem)
    if event.action == "closed":
        wants_issue = event.merged and event.milestone_due_on is None
        issues = linked(handles, event) if wants_issue else []
        issue_due = next((i.milestone_due_on for i in issues if i.milestone_due_on), None)
        due = deadline(
            event.milestone_due_on, issue_due, event.created_at, config.reputation.sla_hours
        )
        reverted = job_state(stored.reverted, event.repo, reverts) if reverts else None
        snap = head_only(handles, event, merge_base is not None)
        return snap, dataclasses.replace(
            context, deadline=due, reverts_pr=reverts, reverted_job=reverted
        )
    issues = linked(handles, event)
    snap = snapshot(handles, event, merge_base, spec_text(issues), config)
    report = score_head(handles, snap, context.rubric, config)
    return snap, dataclasses.replace(context, report=report)
