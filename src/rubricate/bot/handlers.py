"""The bot's pure core entry point: an event and what is known in, effects out (pure).

`handle` returns the effects in the order the executor applies them: `AppendEvents` first (the
ledger is the source of truth), then the views derived from the ledger (sticky comment, check
run, gate status, reactions, replies, outputs) and log lines. The command and grader handlers
are imported on dispatch, so a pull-request event does not load them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rubricate.bot.context import HandlerContext
from rubricate.bot.on_pr import on_pull_request
from rubricate.bot.payload import PullRequestEvent
from rubricate.bot.payload_graders import GradersEvent, JobEvent

if TYPE_CHECKING:
    from rubricate.bot.effects import Effect
    from rubricate.bot.jobstate import JobState
    from rubricate.evidence.snapshot import Snapshot

__all__ = ["HandlerContext", "handle"]


def handle(
    event: JobEvent, snapshot: Snapshot | None, job: JobState, ctx: HandlerContext
) -> list[Effect]:
    """The effects of one event on one PR job."""
    if isinstance(event, PullRequestEvent):
        return on_pull_request(event, snapshot, job, ctx)
    if isinstance(event, GradersEvent):
        from rubricate.bot.on_graders import on_graders

        return on_graders(event, job, ctx)
    from rubricate.bot.on_command import on_commands

    return on_commands(event, job, ctx)
