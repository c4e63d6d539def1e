"""Pull-request lifecycle events: versions, automatic scores, merge and abandonment (pure).

`on_pull_request` says what each action records; the version rules are DESIGN.md §5 ("Rebases
keep scores").
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from rubricate.bot.binding import Bound
from rubricate.bot.check_run import check_run
from rubricate.bot.effects import AppendEvents, Effect, Log
from rubricate.bot.events import HandlerContext, PullRequestEvent
from rubricate.bot.gate import status
from rubricate.bot.jobstate import JobState
from rubricate.bot.placement import Placement, merge_choice, place_head, retarget
from rubricate.bot.record import (
    Stamp,
    judge_info,
    new_event,
    report_evidence,
    report_source,
    scored,
    source_evidence,
)
from rubricate.bot.sticky import outputs, sticky
from rubricate.bot.visible import reverted_pr
from rubricate.evidence.snapshot import Snapshot
from rubricate.ledger.event import Event, EventKind, Override
from rubricate.rubric.model import ScoreValue

_REPEATABLE = ("reopened", "closed", "edited")


def on_pull_request(
    event: PullRequestEvent, snapshot: Snapshot | None, job: JobState, ctx: HandlerContext
) -> list[Effect]:
    """The effects of a pull-request event.

    - opened / reopened / ready_for_review / synchronize: the head is placed in a version. The first
      version records a FIRST_SUBMISSION from the automatic report. A version is bound to the PR's
      own change, the diff from the merge base to the head (`change_id`): a push that changes it
      opens a new version scored automatically, even when the tree stays the same (a
      `git merge -s ours` of the base); a rebase or a merge of the base that leaves the change as
      it was adds the head to the same version, so scores and the gate carry over to the new head
      commit. A head that returns to an older version's change (a force-push back) makes that
      version current again, and the gate is that version's own: pending unless it has a passing
      or overridden approval.
    - A head event older than the latest one recorded (a delivery that arrives late, or a re-run of
      an old run) changes nothing: it is logged and ignored (a retarget's run, which lowered the
      head first, then sets the head's gate as the ledger has it: `rubricate.bot.lowering`).
    - reopened always records its event, even when the close it undoes is not recorded yet (the
      close's run is late, or fails and is re-run): the ledger then holds the reopening after the
      `abandoned`, and the job is open, as the PR is (`rubricate.ledger.fold.job_lifecycle`).
    - The change a version records is bound to the PR's base (`rubricate.bot.binding`): a head
      whose change is the same against another base (the PR forks from a commit both bases
      hold), or a head commit recorded under another base, is not that version's, so a push
      never brings back a version approved under another base's rules.
    - edited with a change of base (a retarget): a new version against the new base, gate
      pending, with the config read again for the new base; a draft's too, so that a PR approved
      under one base's rules never takes that green to another base by way of a draft (a draft
      that no version was recorded for yet records nothing: it is first scored when ready). A
      retarget the current version already holds (the head's change bound to this base: a
      re-run or a redelivery of a recorded retarget) changes nothing. Without git (no change
      known) every retarget is a new version; a head whose change is not known brings back by
      its commit or tree only a version recorded since the latest retarget (`JobState.under_base`),
      and the retarget's run sets the heads of approved versions recorded before it pending.
    - closed: `final_approval` when merged (gate passed, overridden or bypassed), else `abandoned`.
      A merged revert records a `disputed` event on the PR it reverts.
    """
    if event.action == "closed":
        return _closed(event, snapshot, job, ctx)
    if event.draft and not job.versions:
        return [Log(f"draft #{event.number} moved to {event.base_ref} before it was submitted")]
    return _head_seen(event, snapshot, job, ctx)


def _head_seen(
    event: PullRequestEvent, snapshot: Snapshot | None, job: JobState, ctx: HandlerContext
) -> list[Effect]:
    tree = _bound(snapshot, event)
    retargeted = event.action == "edited" and bool(job.versions)  # another base, another change
    place = (retarget if retargeted else place_head)(job, event.head_sha, tree)
    records = place.records or job.abandoned or event.action == "reopened"  # see the docstring
    if records and job.head_at is not None and event.at < job.head_at:
        return _stale(event, job, ctx)
    events: list[Event] = []
    if records:
        events.append(_auto_event(event, tree, place, job, ctx))
    after = job.with_events(events)
    effects: list[Effect] = [AppendEvents(tuple(events))] if events else []
    effects += [
        sticky(after, ctx.rubric, fresh=ctx.first_attempt and event.action == "opened"),
        check_run(after, ctx.rubric, event.head_sha, ctx.report),
        status(after, ctx.rubric, event.head_sha),
        *[status(after, ctx.rubric, h) for h in _left_behind(after, event.head_sha, retargeted)],
        outputs(after, ctx.rubric),
        Log(_head_log(event, place), {"version": place.version, "events": len(events)}),
    ]
    return effects


def _left_behind(job: JobState, head_sha: str, retargeted: bool) -> list[str]:
    """At a retarget, the heads of approved versions recorded before it: each may still show
    its green on GitHub, and a push back to one is not approved under the new base until its
    own run (`rubricate.bot.gate.status` sets them pending)."""
    if not retargeted:
        return []
    approved = [v for v in job.versions if v.number in job.approvals and not job.under_base(v)]
    heads = dict.fromkeys(h for v in approved for h in v.heads if h != head_sha)
    return [h for h in heads if job.version_of_head(h) in approved]


def _stale(event: PullRequestEvent, job: JobState, ctx: HandlerContext) -> list[Effect]:
    at, latest = _time(event.at), _time(job.head_at)
    message = (
        f"pull_request {event.action} #{event.number} at {event.head_sha[:7]} ({at}) is older "
        f"than the latest head event recorded ({latest}): ignored"
    )
    return [outputs(job, ctx.rubric), Log(message)]


def _head_log(event: PullRequestEvent, place: Placement) -> str:
    if place.reactivated:
        what = f"the head returns to the tree of v{place.version}: v{place.version} is current"
    elif place.new_version and event.action == "edited":
        what = f"retargeted to {event.base_ref}: new version v{place.version}, gate pending"
    elif place.new_version:
        what = f"new version v{place.version}"
    elif place.new_head:
        what = f"same tree, v{place.version} kept"
    else:
        what = f"head already recorded in v{place.version}"
    return f"pull_request {event.action} #{event.number} at {event.head_sha[:7]}: {what}"


def _auto_event(
    event: PullRequestEvent,
    tree: Bound,
    place: Placement,
    job: JobState,
    ctx: HandlerContext,
) -> Event:
    report = ctx.report
    previous = None if place.new_version else job.auto.get(place.version)
    if report is not None or previous is None:
        scores: dict[str, ScoreValue] = report.scores() if report else {}
        evidence, source = report_evidence(report), report_source(report)
    else:
        scores, source = _known(previous.scores), previous.source
        evidence = [dict(entry) for entry in previous.evidence]
    kind: EventKind = (
        "first_submission" if place.version == 1 and not job.versions else "review_scored"
    )
    stamp = _stamp(event, place.version, event.head_sha, tree, job, again=place.reactivated)
    return new_event(
        kind,
        stamp,
        **scored(ctx.rubric, scores),
        source=source,
        evidence=evidence,
        judge=judge_info(report),
    )


def _closed(
    event: PullRequestEvent, snapshot: Snapshot | None, job: JobState, ctx: HandlerContext
) -> list[Effect]:
    if not event.merged and not job.versions:
        return [Log(f"pull request #{event.number} closed before any version was recorded")]
    events = [_final(event, snapshot, job, ctx) if event.merged else _abandoned(event, job)]
    dispute = _revert_dispute(event, ctx) if event.merged else None
    effects: list[Effect] = []
    if isinstance(dispute, Event):
        events.append(dispute)
    elif dispute:
        effects.append(Log(dispute))
    after = job.with_events(events)
    outcome = "merged" if event.merged else "closed without merge"
    return [
        AppendEvents(tuple(events)),
        sticky(after, ctx.rubric),
        outputs(after, ctx.rubric),
        *effects,
        Log(f"pull request #{event.number} {outcome}", {"events": len(events)}),
    ]


def _final(
    event: PullRequestEvent, snapshot: Snapshot | None, job: JobState, ctx: HandlerContext
) -> Event:
    tree = _bound(snapshot, event)
    version, choice = merge_choice(job, event.head_sha, tree)
    if choice.scores is not None:
        scores, source = dict(choice.scores), choice.source or "auto"
    else:
        scores = ctx.report.scores() if ctx.report else {}
        source = report_source(ctx.report)
    reason = choice.override_reason
    stamp = _stamp(event, version, event.head_sha, tree, job, actor=event.merged_by)
    return new_event(
        "final_approval",
        stamp,
        **scored(ctx.rubric, scores),
        source=source,
        gate=choice.gate,
        deadline=ctx.deadline,
        evidence=source_evidence(dict.fromkeys(scores, source)),
        **({"override": Override(reason=reason)} if reason is not None else {}),
    )


def _abandoned(event: PullRequestEvent, job: JobState) -> Event:
    current = job.current
    version = current.number if current else 1
    tree = Bound(current.tree_sha, current.change_id) if current else Bound()
    return new_event("abandoned", _stamp(event, version, event.head_sha, tree, job))


def _revert_dispute(event: PullRequestEvent, ctx: HandlerContext) -> Event | str | None:
    """A `disputed` event on the PR a merged revert undoes, or why none is recorded."""
    number = ctx.reverts_pr if ctx.reverts_pr is not None else reverted_pr(event)
    if number is None:
        return None
    reverted = ctx.reverted_job
    if reverted is None or reverted.pr != number or reverted.final is None:
        return f"#{event.number} reverts #{number}, which the ledger has no merged job for"
    final = reverted.final
    stamp = Stamp(
        repo=event.repo,
        pr=number,
        author=reverted.author or final.author,
        version=final.version,
        head_sha=final.head_sha,
        tree_sha=final.tree_sha,
        at=event.at,
        actor=event.merged_by or event.sender or event.author,
        actor_role="none",
        delivery=f"revert:{event.number}",
    )
    return new_event("disputed", stamp, feedback=f"reverted by #{event.number}")


def _stamp(
    event: PullRequestEvent,
    version: int,
    head_sha: str,
    tree: Bound,
    job: JobState,
    actor: str | None = None,
    again: bool = False,
) -> Stamp:
    delivery = f"pr:{event.action}:{head_sha}"
    if again or event.action in _REPEATABLE:
        delivery += f"@{_time(event.at)}"
    known = job.version(version)
    return Stamp(
        repo=event.repo,
        pr=event.number,
        author=job.author or event.author,
        version=version,
        head_sha=head_sha,
        tree_sha=tree.tree_sha or (known.tree_sha if known else None),
        change_id=known.change_id if known and known.change_id else tree.recorded,
        at=event.at,
        actor=actor or event.sender or event.author,
        actor_role="none",
        delivery=delivery,
    )


def _time(at: datetime | None) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ") if at is not None else "never"


def _known(scores: Mapping[str, ScoreValue]) -> dict[str, ScoreValue]:
    """Automatic scores without nulls: an automatic score leaves an unscored criterion out."""
    return {cid: value for cid, value in scores.items() if value is not None}


def _bound(snapshot: Snapshot | None, event: PullRequestEvent) -> Bound:
    """The head tree and change (to the PR's base) from the snapshot, when the snapshot is of
    this head."""
    if snapshot is None or not snapshot.head_tree or snapshot.head_sha != event.head_sha:
        return Bound()
    return Bound(snapshot.head_tree, snapshot.change_id or None, event.base_ref)
