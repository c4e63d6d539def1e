"""Apply one slash command to a job: events to append, and a reply when one is due (pure).

`Invocation` says who ran a comment's commands and on what PR state; `apply_command` authorizes
a command, checks its moment and runs its handler (one per command, marked `@handles`). The
rules are DESIGN.md §5 ("Authorization", "Rebases keep scores").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from rubricate.bot.command_table import MIN_REASON, command, display_name
from rubricate.bot.commands import (
    CommandMistake,
    ParsedCommand,
    ParseResult,
    authorize,
    resolve_scores,
)
from rubricate.bot.events import HandlerContext
from rubricate.bot.jobstate import JobState
from rubricate.bot.record import Stamp, new_event, scored, source_evidence, version_stamp
from rubricate.bot.replies import ALREADY_FAILS, REPLY, Reply, fail_reasons, help_markdown
from rubricate.ledger.event import Event, Override
from rubricate.rubric import scoring
from rubricate.rubric.describe import describe_markdown
from rubricate.rubric.model import ScoreValue

FOR_THE_HEAD = frozenset({"score", "approve", "override"})


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


@dataclass(frozen=True)
class Refusal:
    """Why a command is refused, and whether a re-run of the job may apply it (`retry`)."""

    text: str
    retry: bool = False


@dataclass(frozen=True)
class CommandResult:
    """What one command did: the events it records and its reply, if any."""

    events: tuple[Event, ...] = ()
    reply: Reply | None = None
    applied: bool = False


Handler = Callable[[ParsedCommand, Invocation, JobState, HandlerContext], CommandResult]
HANDLERS: dict[str, Handler] = {}
"""Each command's handler, by name (filled by `@handles`)."""


def handles(name: str) -> Callable[[Handler], Handler]:
    """Mark a function as the handler of the command `name` in the command table."""

    def register(handler: Handler) -> Handler:
        HANDLERS[name] = handler
        return handler

    return register


def apply_command(
    item: ParseResult, inv: Invocation, job: JobState, ctx: HandlerContext
) -> CommandResult:
    """Authorize, check the moment, and apply one command.

    Every command is authorized first, a mistaken one too, so that nobody without the role gets
    their text echoed; a role that could not be read is said so and the comment is left for a
    re-run. `/score`, `/approve` and `/override` apply only to the version the reviewer saw. A
    reviewer's scoring of v1 before any new version also records a `first_submission` that
    completes or overrides the automatic values criterion by criterion; an override is an
    `approved` event carrying the failing scores and the reason.
    """
    decision = authorize(
        item.name, inv.actor, inv.actor_role, inv.pr_author, ctx.config.commands.roles
    )
    if not decision.allowed and inv.role_problem and decision.for_role:
        text = REPLY["role_unread"].format(why=inv.role_problem, command=display_name(item.name))
        return CommandResult(reply=Reply(item, text, refused=True, retry=True, undecided=True))
    if isinstance(item, CommandMistake):
        known = command(item.name) is not None and not decision.allowed
        return _refuse(item, decision.reason if known else item.message)
    if not decision.allowed:
        return _refuse(item, decision.reason)
    refusal = _moment_refusal(item, inv, job)
    if refusal is not None:
        return _refuse(item, refusal.text, retry=refusal.retry)
    return HANDLERS[item.name](item, inv, job, ctx)


def _refuse(item: ParseResult, why: str, *, retry: bool = False) -> CommandResult:
    return CommandResult(reply=Reply(item, why, refused=True, retry=retry))


def _moment_refusal(item: ParsedCommand, inv: Invocation, job: JobState) -> Refusal | None:
    """Why the command may not run at this moment of the PR, or None when it may."""
    spec = command(item.name)
    moment = spec.moment if spec else "any"
    merged = job.merged or bool(inv.pr_merged)
    if moment == "merged" and not merged:
        return Refusal(REPLY["not_merged"].format(command=display_name(item.name)))
    if moment != "open":
        return None
    if merged:
        return Refusal(REPLY["merged"])
    if not inv.pr_open or job.abandoned:
        return Refusal(REPLY["closed"])
    if not job.versions:
        return Refusal(REPLY["no_version"])
    return _unseen_version(inv, job) if item.name in FOR_THE_HEAD else None


def _unseen_version(inv: Invocation, job: JobState) -> Refusal | None:
    """Why the command was not written about the current version, or None.

    A review of the PR's head that no run has recorded yet may apply on a re-run (`retry`)."""
    current = job.current
    if current is None:
        return None
    version = current.number
    if inv.reviewed_sha is not None:
        commit = inv.reviewed_sha[:7]
        if inv.reviewed_sha in current.heads:
            return None
        if any(inv.reviewed_sha in v.heads for v in job.versions):
            return Refusal(REPLY["stale_review"].format(commit=commit, version=version))
        if inv.reviewed_sha == inv.pr_head_sha:
            return Refusal(REPLY["unrecorded_review"].format(commit=commit), retry=True)
        return Refusal(REPLY["unknown_review"].format(commit=commit))
    if inv.at < current.since:
        return Refusal(REPLY["stale_comment"].format(version=version))
    return None


def _stamp(item: ParsedCommand, inv: Invocation, job: JobState, version: int) -> Stamp:
    delivery = f"{inv.delivery_prefix}#{item.index}"
    return version_stamp(
        job,
        version,
        author=inv.pr_author,
        at=inv.at,
        actor=inv.actor,
        role=inv.actor_role,
        delivery=delivery,
    )


def _scoring_events(
    item: ParsedCommand,
    inv: Invocation,
    job: JobState,
    ctx: HandlerContext,
    merged: dict[str, ScoreValue],
) -> list[Event]:
    """`review_scored` with the reviewer's merged scores, and `first_submission` on v1."""
    version = job.current_version
    stamp = _stamp(item, inv, job, version)
    events = [
        new_event(
            "review_scored",
            stamp,
            **scored(ctx.rubric, merged),
            source="reviewer",
            feedback=item.text or None,
        )
    ]
    if version == 1 and len(job.versions) == 1:
        first = {**job.first_submission, **merged}
        sources = {**job.first_sources, **dict.fromkeys(merged, "reviewer")}
        events.append(
            new_event(
                "first_submission",
                stamp,
                **scored(ctx.rubric, first),
                source="reviewer",
                evidence=source_evidence(sources),
            )
        )
    return events


@handles("score")
def _score(
    item: ParsedCommand, inv: Invocation, job: JobState, ctx: HandlerContext
) -> CommandResult:
    new = resolve_scores(ctx.rubric, item.scores)
    if isinstance(new, str):
        return _refuse(item, new)
    merged = {**job.reviewer_scores.get(job.current_version, {}), **new}
    return CommandResult(tuple(_scoring_events(item, inv, job, ctx, merged)), applied=True)


@handles("approve")
def _approve(
    item: ParsedCommand, inv: Invocation, job: JobState, ctx: HandlerContext
) -> CommandResult:
    new = resolve_scores(ctx.rubric, item.scores)
    if isinstance(new, str):
        return _refuse(item, new)
    version = job.current_version
    merged = ctx.rubric.known({**job.reviewer_scores.get(version, {}), **new})
    missing = [c.id for c in ctx.rubric.criteria if not c.nullable and merged.get(c.id) is None]
    if missing:
        example = "/approve " + " ".join(f"{cid}=N" for cid in missing)
        text = REPLY["missing"].format(
            missing=", ".join(f"`{cid}`" for cid in missing), example=example
        )
        partial = scoring.score(ctx.rubric, merged)
        if partial.verdict == "fail":
            text += ALREADY_FAILS.format(why=fail_reasons(partial, ctx.rubric))
        return _refuse(item, text)
    events = _scoring_events(item, inv, job, ctx, merged) if new else []
    stamp = _stamp(item, inv, job, version)
    events.append(new_event("approved", stamp, **scored(ctx.rubric, merged), source="reviewer"))
    result = scoring.score(ctx.rubric, merged)
    reply = None
    if result.verdict != "pass":
        why = fail_reasons(result, ctx.rubric)
        text = REPLY["approval_fails"].format(version=version, why=why, min_reason=MIN_REASON)
        reply = Reply(item, text, refused=False)
    return CommandResult(tuple(events), reply, applied=True)


@handles("revise")
def _revise(
    item: ParsedCommand, inv: Invocation, job: JobState, ctx: HandlerContext
) -> CommandResult:
    stamp = _stamp(item, inv, job, job.current_version)
    return CommandResult(
        (new_event("revision_requested", stamp, feedback=item.text),), applied=True
    )


@handles("override")
def _override(
    item: ParsedCommand, inv: Invocation, job: JobState, ctx: HandlerContext
) -> CommandResult:
    version = job.current_version
    approval = job.approval
    if approval is None:
        return _refuse(item, REPLY["nothing_to_override"].format(version=version))
    if approval.override is not None:
        actor = approval.override.actor
        return _refuse(item, REPLY["already_overridden"].format(version=version, actor=actor))
    if approval.verdict == "pass":
        return _refuse(item, REPLY["already_passes"].format(version=version))
    event = new_event(
        "approved",
        _stamp(item, inv, job, version),
        **scored(ctx.rubric, approval.scores),
        source="reviewer",
        override=Override(reason=item.text),
    )
    return CommandResult((event,), applied=True)


def _after_merge_version(job: JobState) -> int:
    return job.final.version if job.final is not None else max(job.current_version, 1)


@handles("rate")
def _rate(
    item: ParsedCommand, inv: Invocation, job: JobState, ctx: HandlerContext
) -> CommandResult:
    stamp = _stamp(item, inv, job, _after_merge_version(job))
    event = new_event("rated", stamp, rating=item.rating, feedback=item.text or None)
    return CommandResult((event,), applied=True)


@handles("dispute")
def _dispute(
    item: ParsedCommand, inv: Invocation, job: JobState, ctx: HandlerContext
) -> CommandResult:
    stamp = _stamp(item, inv, job, _after_merge_version(job))
    return CommandResult((new_event("disputed", stamp, feedback=item.text),), applied=True)


@handles("rubric")
def _rubric(
    item: ParsedCommand, inv: Invocation, job: JobState, ctx: HandlerContext
) -> CommandResult:
    return CommandResult(
        reply=Reply(item, describe_markdown(ctx.rubric), refused=False), applied=True
    )


@handles("help")
def _help(
    item: ParsedCommand, inv: Invocation, job: JobState, ctx: HandlerContext
) -> CommandResult:
    text = help_markdown(ctx.config.commands.roles)
    return CommandResult(reply=Reply(item, text, refused=False), applied=True)
