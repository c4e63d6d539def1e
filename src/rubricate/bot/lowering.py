"""The events that take a head's green down before they are evaluated, and the status that
settles that head afterwards (pure).

A retarget (the old base's rules gave the green) and a review's dismissal on an open PR (the
dismissed review may have given it) lower the head's `rubricate/approval` to pending before
anything is read: the Action sets it at once, `rubricate serve` through its outbox
(`lowered`). Whatever the core then does with the event (records it, finds it stale, finds
nothing to change), its effects end with a status for that head while it is the PR's head,
the gate the ledger gives it (`settled`): a lowering is the last word only on a head the PR
has left, whose own run (a push back to it) sets its gate.
"""

from __future__ import annotations

from rubricate.bot.effects import AppendEvents, Effect, SetStatus
from rubricate.bot.events import JobEvent, PullRequestEvent, ReviewEvent
from rubricate.bot.gate import status
from rubricate.bot.jobstate import JobState
from rubricate.bot.payload import RETARGET
from rubricate.rubric.model import Rubric


def lowered(event: object) -> SetStatus | None:
    """The pending status a run sets on the head before its core runs, if the event (any parsed
    payload) lowers it."""
    sha: str | None
    if isinstance(event, PullRequestEvent) and event.action == RETARGET:
        sha, why = event.head_sha, f"moved to {event.base_ref}"
    elif isinstance(event, ReviewEvent) and event.dismissed and event.pr_open:
        sha, why = event.pr_head_sha, f"review {event.review_id} dismissed"
    else:
        return None
    return SetStatus(sha, "pending", f"rubricate: {why}, re-evaluating") if sha else None


def settled(event: JobEvent, job: JobState, rubric: Rubric, effects: list[Effect]) -> list[Effect]:
    """The effects, with the lowered head's gate (as the ledger stands after them) appended
    when none of them sets it and the head is still the PR's. A head the PR has left keeps its
    lowering: a late retarget of it is not recorded, so a green the ledger gives it may be one
    of the old base's, which a force-push back to it would bring back."""
    low = lowered(event)
    if low is None or any(isinstance(e, SetStatus) and e.sha == low.sha for e in effects):
        return effects
    events = [e for effect in effects if isinstance(effect, AppendEvents) for e in effect.events]
    after = job.with_events(events)
    if after.current is None or after.current.head_sha != low.sha:
        return effects
    return [*effects, status(after, rubric, low.sha)]
