"""The bot's pure core entry point: an event and what is known in, effects out (pure).

`handle` returns the effects in the order the executor applies them: `AppendEvents` first (the
ledger is the source of truth), then the views derived from the ledger (sticky comment, check
run, gate status, reactions, replies, outputs) and log lines. `HandlerContext`
(`rubricate.bot.events`) is what the shell tells a handler besides the event and the job state.
The grader handler and the command machinery load on dispatch, so a pull-request event does not
load them.

Comments and reviews (`on_commands`) run their commands in order and refresh the views. Each is
answered once: by one reply when any command needs an answer (a refusal, a mistake, or
information asked for), else by a 👍 reaction (one REST call; no 👀 a second before it). Each
command's delivery is `comment:<id>#<n>` (or `review:<id>#<n>`). A comment or review whose
deliveries are already in the ledger was handled by an earlier run: it adds no events and no
replies, and only rebuilds the views and the reaction (this heals a half-applied run). One that
an earlier run answered without recording any event (only refused or informational commands) is
marked with `MarkAnswered`; the shell keeps those ids in the view state (`JobState.answered`)
and such a comment is skipped: a re-run neither replies again nor re-evaluates a refusal.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from rubricate.bot.command_table import display_name
from rubricate.bot.effects import (
    AppendEvents,
    Effect,
    Log,
    MarkAnswered,
    PostComment,
    React,
    ReactionKind,
    Undecided,
)
from rubricate.bot.events import CommentEvent, PullRequestEvent, ReviewEvent
from rubricate.bot.gate import gate_of, status
from rubricate.bot.on_pr import on_pull_request
from rubricate.bot.render import outputs, sticky

if TYPE_CHECKING:
    from rubricate.bot.events import HandlerContext, JobEvent
    from rubricate.bot.jobstate import JobState
    from rubricate.evidence.snapshot import Snapshot
    from rubricate.ledger.event import Event


def handle(
    event: JobEvent, snapshot: Snapshot | None, job: JobState, ctx: HandlerContext
) -> list[Effect]:
    """The effects of one event on one PR job."""
    if isinstance(event, PullRequestEvent):
        return on_pull_request(event, snapshot, job, ctx)
    if isinstance(event, CommentEvent | ReviewEvent):
        return on_commands(event, job, ctx)
    from rubricate.bot.on_graders import on_graders

    return on_graders(event, job, ctx)


@dataclass(frozen=True)
class Invocation:
    """Who ran the commands of one comment or review, when, and on what PR state."""

    actor: str
    actor_role: str
    pr_author: str
    at: datetime
    delivery_prefix: str
    pr_open: bool = True
    pr_merged: bool | None = None
    reviewed_sha: str | None = None
    pr_head_sha: str | None = None
    role_problem: str | None = None


def on_commands(
    event: CommentEvent | ReviewEvent, job: JobState, ctx: HandlerContext
) -> list[Effect]:
    """The effects of the commands in a new comment or a submitted review."""
    from rubricate.bot.apply import apply_command
    from rubricate.bot.markdown import REPLY_MARKER, Reply, reply_body

    items = event.commands
    prefix = _delivery_prefix(event)
    if not items:
        return [Log(f"{prefix} on #{event.number}: no commands")]
    if job.handled(prefix):
        return _replay(event, job, ctx)
    if prefix in job.answered:
        return [outputs(job, ctx.rubric), Log(f"{prefix} on #{event.number} was already answered")]
    inv = _invocation(event, ctx)
    state = job
    events: list[Event] = []
    replies: list[Reply] = []
    applied = refused = 0
    for item in items:
        outcome = apply_command(item, inv, state, ctx)
        if outcome.events:
            events += outcome.events
            state = state.with_events(outcome.events)
        if outcome.reply is not None:
            replies.append(outcome.reply)
        applied += outcome.applied
        refused += not outcome.applied
    effects: list[Effect] = [AppendEvents(tuple(events))] if events else []
    if replies:
        marker = REPLY_MARKER.format(prefix=prefix)
        body = f"{reply_body(event.actor, replies)}\n{marker}"
        effects.append(PostComment(event.number, body, marker, fresh=ctx.first_attempt))
    if events:
        effects.append(sticky(state, ctx.rubric))
        if gate_of(state, ctx.rubric) != gate_of(job, ctx.rubric):
            effects += _status(state, ctx, event)
    effects += [] if replies else [_react(event, "+1")]
    effects.append(outputs(state, ctx.rubric))
    effects += [] if events or any(r.retry for r in replies) else [MarkAnswered(prefix)]
    summary = f"{prefix} on #{event.number}: {applied} applied, {refused} refused"
    effects.append(Log(summary, {"events": len(events)}))
    undecided = [display_name(r.command.name) for r in replies if r.undecided]
    if undecided:
        why = f"{event.actor}'s role could not be read ({ctx.role_problem})"
        effects.append(Undecided(f"{why}: {', '.join(undecided)} not applied; re-run this job"))
    return effects


def _replay(event: CommentEvent | ReviewEvent, job: JobState, ctx: HandlerContext) -> list[Effect]:
    prefix = _delivery_prefix(event)
    return [
        sticky(job, ctx.rubric),
        *_status(job, ctx, event),
        _react(event, "+1"),
        outputs(job, ctx.rubric),
        Log(f"{prefix} on #{event.number} was already applied; views rebuilt"),
    ]


def _status(
    state: JobState, ctx: HandlerContext, event: CommentEvent | ReviewEvent
) -> list[Effect]:
    """The gate status on the current head, while the PR is open."""
    head = state.current.head_sha if state.current else None
    if head is None or state.merged or state.abandoned or not event.pr_open:
        return []
    return [status(state, ctx.rubric, head)]


def _invocation(event: CommentEvent | ReviewEvent, ctx: HandlerContext) -> Invocation:
    at = event.submitted_at if isinstance(event, ReviewEvent) else event.created_at
    return Invocation(
        actor=event.actor,
        actor_role=ctx.actor_role,
        pr_author=event.pr_author,
        at=at,
        delivery_prefix=_delivery_prefix(event),
        pr_open=event.pr_open,
        pr_merged=event.pr_merged,
        reviewed_sha=event.head_sha if isinstance(event, ReviewEvent) else None,
        pr_head_sha=event.pr_head_sha if isinstance(event, ReviewEvent) else None,
        role_problem=ctx.role_problem,
    )


def _delivery_prefix(event: CommentEvent | ReviewEvent) -> str:
    if isinstance(event, ReviewEvent):
        return f"review:{event.review_id}"
    return f"comment:{event.comment_id}"


def _react(event: CommentEvent | ReviewEvent, content: ReactionKind) -> React:
    if isinstance(event, ReviewEvent):
        return React(event.review_id, content, "review", event.number)
    return React(event.comment_id, content, "issue_comment", event.number)
