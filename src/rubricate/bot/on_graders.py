"""The graders hand-off: a finished graders run, and its results recorded as evidence (pure).

`parse_graders_run` reads a `workflow_run` payload (action `completed`, any conclusion) of a run
started by `pull_request`: the graders workflow. It names no PR that can be trusted: for a fork,
`workflow_run.pull_requests` is empty, and the run's artifact is written by the PR's own code.
The shell finds the PR through the artifact, verifies it against the API (the PR's current head
must be the run's head), and only then builds a `GradersEvent` for `on_graders`.

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
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from rubricate.bot.effects import Annotate, AppendEvents, Effect, Log
from rubricate.bot.markdown import number
from rubricate.bot.payload import BotEvent, Ignored, PayloadError, parse_time
from rubricate.bot.record import (
    Stamp,
    checks_of,
    grader_scores,
    graders_evidence,
    kept_evidence,
    new_event,
    scored,
)
from rubricate.bot.render import outputs, sticky
from rubricate.bot.views import check_run, recorded_annotations
from rubricate.errors import ScoreError
from rubricate.evidence.graders import check_id
from rubricate.rubric.scoring import resolve_criterion_id

if TYPE_CHECKING:
    from rubricate.bot.handlers import HandlerContext
    from rubricate.bot.jobstate import AutoScore, JobState, VersionInfo
    from rubricate.evidence.report_model import CheckResult
    from rubricate.ledger.event import Event
    from rubricate.rubric.model import Rubric

GRADERS_TRIGGER = "pull_request"
_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


@dataclass(frozen=True)
class GradersRun:
    """A completed run of the graders workflow, as its `workflow_run` payload describes it."""

    run_id: int
    repo: str
    head_sha: str
    conclusion: str
    workflow: str
    actor: str
    at: datetime
    head_repo: str = ""
    pull_numbers: tuple[int, ...] = ()


@dataclass(frozen=True)
class GradersEvent:
    """A graders run whose PR the shell verified, with the checks read from its artifact.

    `checks` are untrusted: only `grader:<id>` results, with their texts cut short. `notes` say
    what the shell left out of the artifact, and why.
    """

    run: GradersRun
    number: int
    base_sha: str
    base_ref: str
    checks: tuple[CheckResult, ...]
    notes: tuple[str, ...] = ()

    @property
    def repo(self) -> str:
        """The repository the graders ran in (the PR's base repository)."""
        return self.run.repo

    @property
    def head_sha(self) -> str:
        """The commit the graders ran on."""
        return self.run.head_sha

    @property
    def delivery(self) -> str:
        """The delivery key of the run: a replay of it records nothing new."""
        return f"graders:{self.run.run_id}"


JobEvent = BotEvent | GradersEvent
"""Any event that acts on one PR job."""


def parse_graders_run(payload: Mapping[str, Any]) -> GradersRun | Ignored:
    """The completed graders run of a `workflow_run` payload, or why it is ignored."""
    action = payload.get("action")
    if not isinstance(action, str):
        raise PayloadError(
            "webhook payload: `action` is missing or not a string; is this a workflow_run event?"
        )
    if action != "completed":
        return Ignored(f"workflow_run action {action!r} is not handled (only completed runs)")
    run = payload.get("workflow_run")
    if not isinstance(run, Mapping):
        raise PayloadError("webhook payload: `workflow_run` is missing or not an object")
    trigger = run.get("event")
    if trigger != GRADERS_TRIGGER:
        return Ignored(f"workflow_run of a {trigger!r} run: graders hand off pull_request runs")
    head_sha = str(run.get("head_sha") or "")
    if not _SHA.fullmatch(head_sha):
        raise PayloadError("webhook payload: `workflow_run.head_sha` is not a commit SHA")
    return GradersRun(
        run_id=_positive(run, "id"),
        repo=_full_name(payload.get("repository")),
        head_sha=head_sha,
        conclusion=str(run.get("conclusion") or "none"),
        workflow=str(run.get("name") or ""),
        actor=_login(run.get("triggering_actor")) or _login(run.get("actor")),
        at=_time(run),
        head_repo=_full_name(run.get("head_repository"), required=False),
        pull_numbers=_pull_numbers(run.get("pull_requests")),
    )


def _positive(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise PayloadError(f"webhook payload: `workflow_run.{key}` is not a positive integer")
    return value


def _full_name(repo: Any, *, required: bool = True) -> str:
    name = repo.get("full_name") if isinstance(repo, Mapping) else None
    if isinstance(name, str) and name:
        return name
    if required:
        raise PayloadError("webhook payload: `repository.full_name` is missing")
    return ""


def _login(user: Any) -> str:
    return str(user.get("login") or "") if isinstance(user, Mapping) else ""


def _time(run: Mapping[str, Any]) -> datetime:
    text = run.get("updated_at") or run.get("created_at")
    if not isinstance(text, str):
        raise PayloadError("webhook payload: `workflow_run.updated_at` is missing")
    try:
        return parse_time(text)
    except ValueError:
        raise PayloadError(
            f"webhook payload: `workflow_run.updated_at` is not a time: {text!r}"
        ) from None


def _pull_numbers(pulls: Any) -> tuple[int, ...]:
    if not isinstance(pulls, list):
        return ()
    numbers = [p.get("number") for p in pulls if isinstance(p, Mapping)]
    return tuple(n for n in numbers if isinstance(n, int) and not isinstance(n, bool))


ACTOR = "rubricate-graders"
NOT_PLACED = (
    "graders run {run}: head {head} has no recorded version yet; re-run this job once the PR's "
    "rubricate run has recorded it"
)
CHECK_TITLE = "v{version} automatic score with untrusted graders: {outcome} (informational)"
UNKNOWN_GRADER = "{check} is not a grader of the base branch's config: ignored"
REVIEWER_KEPT = "{criterion}: the reviewer's score is kept; {check} only adds evidence"


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
