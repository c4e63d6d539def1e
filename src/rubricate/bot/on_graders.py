"""A verified graders run: its results recorded as untrusted automatic evidence (pure).

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

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rubricate.bot.effects import Annotate, Annotation, AppendEvents, Effect, Log
from rubricate.bot.markdown import number
from rubricate.bot.record import MAX_FINDINGS, Stamp, new_event, scored
from rubricate.bot.views import MAX_ANNOTATIONS, AnnotationLevel, check_run, outputs, sticky
from rubricate.errors import ScoreError
from rubricate.evidence.graders import check_id
from rubricate.evidence.report_model import to_scale
from rubricate.rubric.scoring import resolve_criterion_id

if TYPE_CHECKING:
    from rubricate.bot.context import HandlerContext
    from rubricate.bot.jobstate import AutoScore, JobState, VersionInfo
    from rubricate.bot.payload_graders import GradersEvent
    from rubricate.evidence.report_model import CheckResult
    from rubricate.ledger.event import Event
    from rubricate.rubric.model import Rubric, ScoreValue

ACTOR = "rubricate-graders"
LABEL = (
    "Grader results (grader:…) were reported by the unprivileged graders run {run}, where the "
    "PR's own code ran: untrusted evidence, never a gate."
)
NOT_PLACED = (
    "graders run {run}: head {head} has no recorded version yet; re-run this job once the PR's "
    "rubricate run has recorded it"
)
CHECK_TITLE = "v{version} automatic score with untrusted graders: {outcome} (informational)"
UNKNOWN_GRADER = "{check} is not a grader of the base branch's config: ignored"
REVIEWER_KEPT = "{criterion}: the reviewer's score is kept; {check} only adds evidence"
_LEVELS: dict[str, AnnotationLevel] = {"error": "failure", "warning": "warning", "info": "notice"}


def on_graders(event: GradersEvent, job: JobState, ctx: HandlerContext) -> list[Effect]:
    """The effects of a verified graders run on its PR job."""
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


def grader_scores(rubric: Rubric, checks: Sequence[CheckResult]) -> dict[str, ScoreValue]:
    """Each criterion's score from its graders' lowest value, on the rubric's scale."""
    lowest: dict[str, CheckResult] = {}
    for check in checks:
        if check.criterion is None or check.value is None:
            continue
        known = lowest.get(check.criterion)
        if known is None or check.value < (known.value or 0.0):
            lowest[check.criterion] = check
    return {cid: _on_scale(rubric, check) for cid, check in lowest.items()}


def _on_scale(rubric: Rubric, check: CheckResult) -> ScoreValue:
    errors = any(f.severity == "error" for f in check.findings)
    defects = errors or any(f.severity == "warning" for f in check.findings)
    return to_scale(rubric.scale, check.value or 0.0, defects=defects, errors=errors)


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
        REVIEWER_KEPT.format(criterion=cid, check=_checks_of(checks, cid))
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
    evidence = _kept(previous, set(filled)) + graders_evidence(
        event, checks, filled, [*notes, *reviewer_notes]
    )
    return new_event(
        "review_scored", stamp, **scored(ctx.rubric, scores), source="auto", evidence=evidence
    )


def _checks_of(checks: Sequence[CheckResult], criterion: str) -> str:
    return ", ".join(c.id for c in checks if c.criterion == criterion)


def _kept(previous: AutoScore | None, replaced: set[str]) -> list[dict[str, Any]]:
    """The version's automatic evidence without earlier graders entries or replaced criteria."""
    return [
        dict(entry)
        for entry in (previous.evidence if previous else ())
        if not entry.get("untrusted")
        and not (entry.get("type") == "criterion" and entry.get("id") in replaced)
    ]


def graders_evidence(
    event: GradersEvent,
    checks: Sequence[CheckResult],
    filled: Mapping[str, ScoreValue],
    notes: Sequence[str],
) -> list[dict[str, Any]]:
    """The graders' evidence entries, every one marked untrusted."""
    mark = {"untrusted": True, "run_id": event.run.run_id}
    entries: list[dict[str, Any]] = [
        {"type": "note", "text": LABEL.format(run=event.run.run_id), **mark}
    ]
    entries += [
        {
            "type": "criterion",
            "id": cid,
            "source": "auto",
            "score": value,
            "check": _checks_of(checks, cid),
            "evidence": [line for c in checks if c.criterion == cid for line in c.evidence],
            **mark,
        }
        for cid, value in filled.items()
    ]
    entries += [
        {
            "type": "check",
            "id": c.id,
            "check": c.id,
            "status": c.status,
            "criterion": c.criterion,
            "value": c.value,
            **mark,
        }
        for c in checks
    ]
    findings = [(c.id, f) for c in checks for f in c.findings][:MAX_FINDINGS]
    entries += [{"type": "finding", "check": cid, **f.as_dict(), **mark} for cid, f in findings]
    entries += [{"type": "note", "text": note, **mark} for note in notes]
    return entries


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


def recorded_annotations(auto: AutoScore | None) -> tuple[Annotation, ...]:
    """Check-run annotations of the located findings recorded for a version."""
    found = []
    for entry in auto.evidence if auto else ():
        line, path = entry.get("line"), entry.get("path")
        if entry.get("type") != "finding" or not path or not isinstance(line, int) or line < 1:
            continue
        title = str(entry.get("check", ""))
        found.append(
            Annotation(
                path=str(path),
                line=line,
                message=str(entry.get("message", "")),
                level=_LEVELS.get(str(entry.get("severity")), "warning"),
                title=f"{title} (untrusted graders run)" if entry.get("untrusted") else title,
            )
        )
    return tuple(found[:MAX_ANNOTATIONS])
