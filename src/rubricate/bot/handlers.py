"""The bot's core entry point: one event and what the shell knows in, effects out (pure).

`handle` sends a pull-request event to `rubricate.bot.on_pr`, a graders run to
`rubricate.bot.on_graders`, a review's dismissal to `rubricate.bot.dismissal`, and a comment or
review to `on_commands`, which applies its
commands in order (`rubricate.bot.apply`) and answers the comment once: one reply when a
command needs an answer, else a 👍. Effects come in the order the executor applies them: the
ledger first, then the views (DESIGN.md §4). A comment already applied only rebuilds the views;
one answered without any event is marked (`MarkAnswered`) and skipped on a re-run.
"""

from __future__ import annotations

from rubricate.bot.apply import Invocation, apply_command
from rubricate.bot.command_table import display_name
from rubricate.bot.dismissal import on_dismissal
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
from rubricate.bot.events import (
    CommentEvent,
    HandlerContext,
    JobEvent,
    PullRequestEvent,
    ReviewEvent,
)
from rubricate.bot.gate import gate_of, status
from rubricate.bot.jobstate import JobState
from rubricate.bot.lowering import settled
from rubricate.bot.on_graders import on_graders
from rubricate.bot.on_pr import on_pull_request
from rubricate.bot.replies import REPLY_MARKER, Reply, reply_body
from rubricate.bot.sticky import outputs, sticky
from rubricate.evidence.snapshot import Snapshot
from rubricate.ledger.event import Event


def handle(
    event: JobEvent, snapshot: Snapshot | None, job: JobState, ctx: HandlerContext
) -> list[Effect]:
    """The effects of one event on one PR job; a head its run lowered first ends with its
    gate (`rubricate.bot.lowering.settled`)."""
    if isinstance(event, PullRequestEvent):
        effects = on_pull_request(event, snapshot, job, ctx)
    elif isinstance(event, ReviewEvent) and event.dismissed:
        effects = on_dismissal(event, job, ctx)
    elif isinstance(event, CommentEvent | ReviewEvent):
        effects = on_commands(event, job, ctx)
    else:
        effects = on_graders(event, job, ctx)
    return settled(event, job, ctx.rubric, effects)


def on_commands(
    event: CommentEvent | ReviewEvent, job: JobState, ctx: HandlerContext
) -> list[Effect]:
    """The effects of the commands in a new comment or a submitted review."""
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
