"""A verified graders run's results, recorded as untrusted evidence for its PR job (pure).

The shell finds the run's PR through its artifact and verifies it against the API (the PR's
current head must be the run's head) before it builds the `GradersEvent` `on_graders` takes.
"""

from __future__ import annotations

import dataclasses

from rubricate.bot.check_run import check_run, recorded_annotations
from rubricate.bot.effects import Annotate, AppendEvents, Effect, Log
from rubricate.bot.events import GradersEvent, HandlerContext
from rubricate.bot.jobstate import AutoScore, JobState, VersionInfo
from rubricate.bot.markdown import number
from rubricate.bot.record import (
    Stamp,
    checks_of,
    grader_scores,
    graders_evidence,
    kept_evidence,
    new_event,
    scored,
)
from rubricate.bot.sticky import outputs, sticky
from rubricate.errors import ScoreError
from rubricate.evidence.graders import check_id
from rubricate.evidence.results import CheckResult
from rubricate.ledger.event import Event
from rubricate.rubric.model import Rubric
from rubricate.rubric.scoring import resolve_criterion_id

ACTOR = "rubricate-graders"
NOT_PLACED = (
    "graders run {run}: head {head} has no recorded version yet; re-run this job once the PR's "
    "rubricate run has recorded it"
)
CHECK_TITLE = "v{version} automatic score with untrusted graders: {outcome} (informational)"
UNKNOWN_GRADER = "{check} is not a grader of the base branch's config: ignored"
REVIEWER_KEPT = "{criterion}: the reviewer's score is kept; {check} only adds evidence"


def on_graders(event: GradersEvent, job: JobState, ctx: HandlerContext) -> list[Effect]:
    """The effects of a verified graders run on its PR job.

    The graders ran the PR's own code in an unprivileged job, so what they report is evidence for
    reviewers, never a gate:
    - one `review_scored` event with `source: auto` for the version whose heads include the run's
      head, delivery `graders:<run_id>`, so a replay records nothing new;
    - each check is matched by id (`grader:<id>`) to a grader of the base branch's config; the
      criterion comes from that config, never from the artifact, and the value in [0, 1] is mapped
      onto the rubric's scale as a local grader's is (several graders of a criterion: the lowest);
    - a grader score fills a criterion only where no reviewer scored that version; the version's
      other automatic scores and evidence are kept, and earlier graders entries are replaced;
    - every graders entry is marked `untrusted: true`; the sticky comment and the check run show
      the findings under a note saying the unprivileged graders run reported them;
    - the gate status is never touched.
    Nothing is recorded for a head the ledger has not placed in a version yet, or for a closed PR.
    """
    where = f"graders run {event.run.run_id} on #{event.number} at {event.head_sha[:7]}"
    version = job.version_of_head(event.head_sha)
    if version is None:
        text = NOT_PLACED.format(run=event.run.run_id, head=event.head_sha[:12])
        return [Annotate(text, "warning"), Log(text)]
    if job.final is not None or job.abandoned:
        return [Log(f"{where}: the pull request is closed; nothing recorded")]
    if event.delivery in job.handled_deliveries:
        return [*_views(job, ctx, event.head_sha), Log(f"{where}: already recorded; views rebuilt")]
    checks, notes = _matched(event, ctx)
    if not checks:
        return [
            Log(f"{where}: no check of a configured grader; nothing recorded", {"notes": notes})
        ]
    recorded = _event(event, version, checks, notes, job, ctx)
    after = job.with_events([recorded])
    summary = f"{where}: {len(checks)} grader checks recorded for v{version.number}"
    return [AppendEvents((recorded,)), *_views(after, ctx, event.head_sha), Log(summary)]


def _matched(event: GradersEvent, ctx: HandlerContext) -> tuple[list[CheckResult], list[str]]:
    """The checks of configured graders, each with the criterion the base config names."""
    graders = {check_id(g): g for g in ctx.config.graders}
    checks: list[CheckResult] = []
    notes = list(event.notes)
    for check in event.checks:
        grader = graders.get(check.id)
        if grader is None:
            notes.append(UNKNOWN_GRADER.format(check=check.id))
            continue
        try:
            criterion: str | None = resolve_criterion_id(ctx.rubric, grader.criterion)
        except ScoreError as exc:
            criterion = None
            notes.append(f"{check.id} scores no criterion: {exc}")
        evidence = (f"`{grader.run}` reported {_value(check)} (unprivileged graders run)",)
        checks.append(dataclasses.replace(check, criterion=criterion, evidence=evidence))
    return checks, notes


def _value(check: CheckResult) -> str:
    return "no value" if check.value is None else f"{check.value:.2f} ({check.status})"


def _event(
    event: GradersEvent,
    version: VersionInfo,
    checks: list[CheckResult],
    notes: list[str],
    job: JobState,
    ctx: HandlerContext,
) -> Event:
    reviewer = job.reviewer_scores.get(version.number, {})
    from_graders = grader_scores(ctx.rubric, checks)
    filled = {cid: value for cid, value in from_graders.items() if cid not in reviewer}
    reviewer_notes = [
        REVIEWER_KEPT.format(criterion=cid, check=checks_of(checks, cid))
        for cid in from_graders
        if cid in reviewer
    ]
    previous = job.auto.get(version.number)
    scores = {**(previous.scores if previous else {}), **filled}
    stamp = Stamp(
        repo=event.repo,
        pr=event.number,
        author=job.author or "",
        version=version.number,
        head_sha=event.head_sha,
        tree_sha=version.tree_sha,
        at=event.run.at,
        actor=event.run.actor or ACTOR,
        actor_role="none",
        delivery=event.delivery,
    )
    evidence = kept_evidence(previous, set(filled)) + graders_evidence(
        event.run.run_id, checks, filled, [*notes, *reviewer_notes]
    )
    return new_event(
        "review_scored", stamp, **scored(ctx.rubric, scores), source="auto", evidence=evidence
    )


def _views(job: JobState, ctx: HandlerContext, head_sha: str) -> list[Effect]:
    """Sticky comment, check run (with the findings' annotations) and outputs; no gate status."""
    auto = job.auto.get(job.current_version)
    run = check_run(job, ctx.rubric, head_sha, None)
    title = CHECK_TITLE.format(version=job.current_version, outcome=_outcome(auto, ctx.rubric))
    return [
        sticky(job, ctx.rubric),
        dataclasses.replace(run, title=title, annotations=recorded_annotations(auto)),
        outputs(job, ctx.rubric),
    ]


def _outcome(auto: AutoScore | None, rubric: Rubric) -> str:
    if auto is None or auto.weighted_total is None:
        return "no automatic score"
    return f"{number(auto.weighted_total)}/{number(rubric.scale.max)} · {auto.verdict}"
