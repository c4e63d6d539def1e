"""A dismissed review takes back the approvals it gave (pure: the dismissal and the job in,
effects out).

A maintainer who dismisses a review on GitHub says it no longer stands. So every version whose
standing approval rests on that review (`Approval.rests_on`) loses what the review gave: its
approval when the review approved it (the gate goes back to pending), its override when the
review overrode another's failing approval (that approval fails again), with the ledger's own
withdrawal, a `revision_requested` event of that version (delivery `review:<id>#dismissed`,
its natural key as ever), and the gate of its heads is set again. Another reviewer's approval
is not the review's, and stays. A review the ledger holds nothing of yet is marked
answered, so a late run of its submission applies nothing: in the view state, not the ledger,
since most dismissed reviews hold no command (GitHub's stale-approval rule dismisses every
approving review at each push) and a dismissal's body may no longer show the commands its
submission held, so a ledger mark would be written for nearly every dismissal; a view state lost
or put back lets such a late run apply (`SECURITY.md`). After a merge nothing changes (the
merge recorded the gate it had). On a PR closed without merge the withdrawal is recorded all
the same, dated just before the close: after it, a `revision_requested` would read as a
reopening (`rubricate.ledger.fold.lifecycle_state`, which every reader, older ones too,
applies), and a PR reopened later at the same head must not find the dismissed approval.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from rubricate.bot.delivery import DISMISSED
from rubricate.bot.effects import AppendEvents, Effect, Log, MarkAnswered
from rubricate.bot.events import HandlerContext, ReviewEvent
from rubricate.bot.gate import status
from rubricate.bot.jobstate import JobState
from rubricate.bot.record import new_event, version_stamp
from rubricate.bot.sticky import outputs, sticky
from rubricate.ledger.event import Event

_JUST_BEFORE = timedelta(microseconds=1)


def on_dismissal(event: ReviewEvent, job: JobState, ctx: HandlerContext) -> list[Effect]:
    """The effects of a review's dismissal."""
    prefix = f"review:{event.review_id}"
    where = f"{prefix} on #{event.number} dismissed by {event.dismissed_by}"
    if job.merged or event.pr_merged:
        return [outputs(job, ctx.rubric), Log(f"{where}: the PR is merged, nothing changes")]
    standing = sorted(n for n, approval in job.approvals.items() if prefix in approval.rests_on)
    events = [_withdrawal(event, job, n, _closed_at(event, job)) for n in standing]
    after = job.with_events(events)
    effects: list[Effect] = [AppendEvents(tuple(events))] if events else []
    if not events and not job.handled(prefix):
        effects.append(MarkAnswered(prefix))  # a later run of the review applies nothing
    if events:
        effects.append(sticky(after, ctx.rubric))
    effects += [status(after, ctx.rubric, head) for head in _heads(after, events)]
    withdrawn = ", ".join(f"v{e.version}" for e in events) or "no approval"
    effects += [outputs(after, ctx.rubric), Log(f"{where}: {withdrawn} withdrawn")]
    return effects


def _withdrawal(
    event: ReviewEvent, job: JobState, version: int, closed_at: datetime | None
) -> Event:
    """The `revision_requested` that withdraws what the review gave `version` (its approval, or
    its override), at the dismissal's time: never before what it withdraws, and so after every
    command of the review, and before any comment or review written after the dismissal (whose
    run may have come first: it is not the review's and stays). On a closed PR it is dated just
    before the close (`closed_at`), still never before what it withdraws, so that no fold reads
    it as a reopening."""
    approval, prefix = job.approvals[version], f"review:{event.review_id}"
    times = [approval.at] if approval.given_in == prefix else []
    if approval.override is not None and approval.override_in == prefix:
        times.append(approval.override.at)
    at = max([event.dismissed_at or event.submitted_at, event.submitted_at, *times])
    if closed_at is not None and at >= closed_at:
        at = max([closed_at - _JUST_BEFORE, *times])
    stamp = version_stamp(
        job,
        version,
        author=event.pr_author,
        at=at,
        actor=event.dismissed_by or event.actor,
        role="none",
        delivery=f"{prefix}{DISMISSED}",
    )
    text = f"review {event.review_id} by {event.actor} was dismissed by {event.dismissed_by}"
    return new_event("revision_requested", stamp, feedback=text)


def _closed_at(event: ReviewEvent, job: JobState) -> datetime | None:
    """When the PR was closed, if the dismissal came while it was: the payload's `closed_at`,
    else the latest close the ledger holds."""
    if event.pr_open:
        return None
    closes = [e.at for e in job.events if e.kind == "abandoned"]
    return event.pr_closed_at or max(closes, default=None)


def _heads(job: JobState, events: list[Event]) -> list[str]:
    """The current head (its gate stands as it is, or goes down), then every head of the
    versions whose approval was withdrawn, each once: a head keeps its status on GitHub until a
    run sets another."""
    withdrawn = [job.version(e.version) for e in events]
    heads = [h for v in (job.current, *withdrawn) if v is not None for h in v.heads]
    current = job.current.head_sha if job.current else None
    return list(dict.fromkeys([current, *heads] if current else heads))
