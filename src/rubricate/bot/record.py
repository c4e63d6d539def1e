"""Build the ledger events the bot appends (pure: data in, `Event` out).

Every event has `id = natural_key(kind, repo, pr, version, delivery)`, so a replayed delivery
writes nothing new. Scoring events carry the full rubric reference, the scores, the weighted
total, the normalized total and the verdict. Automatic evidence is recorded as a list of typed
entries (`criterion`, `check`, `finding`, `not_scored`, `note`) so that views can be rebuilt
from the ledger alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast, get_args

from pydantic import ValidationError

from rubricate.bot.jobstate import AutoScore, JobState
from rubricate.evidence.results import CheckResult, ScoreReport, to_scale
from rubricate.ledger.event import (
    ActorRole,
    CriterionRef,
    Event,
    EventKind,
    JudgeInfo,
    RubricRef,
    ScaleRef,
)
from rubricate.ledger.trust import natural_key
from rubricate.rubric import scoring
from rubricate.rubric.model import Rubric, ScoreValue

MAX_FINDINGS = 50
MAX_EVIDENCE_TEXT = 300
MAX_EVIDENCE_ITEMS = 5
LABEL = (
    "Grader results (grader:…) were reported by the unprivileged graders run {run}, where the "
    "PR's own code ran: untrusted evidence, never a gate."
)


@dataclass(frozen=True)
class Stamp:
    """Where and when an event happens: the job, the version, the actor and the delivery."""

    repo: str
    pr: int
    author: str
    version: int
    head_sha: str | None
    tree_sha: str | None
    at: datetime
    actor: str
    actor_role: str
    delivery: str
    change_id: str | None = None


def version_stamp(
    job: JobState, version: int, *, author: str, at: datetime, actor: str, role: str, delivery: str
) -> Stamp:
    """The stamp of an event on `version` of the job: the version's head, tree and change."""
    info = job.version(version)
    return Stamp(
        repo=job.repo,
        pr=job.pr,
        author=job.author or author,
        version=version,
        head_sha=info.head_sha if info else None,
        tree_sha=info.tree_sha if info else None,
        change_id=info.change_id if info else None,
        at=at,
        actor=actor,
        actor_role=role,
        delivery=delivery,
    )


def new_event(kind: EventKind, stamp: Stamp, **fields: Any) -> Event:
    """An event of `kind` at `stamp`, with its natural-key id and any extra fields."""
    return Event(
        id=natural_key(kind, stamp.repo, stamp.pr, stamp.version, stamp.delivery),
        kind=kind,
        repo=stamp.repo,
        pr=stamp.pr,
        author=stamp.author,
        actor=stamp.actor,
        actor_role=_role(stamp.actor_role),
        at=stamp.at,
        version=stamp.version,
        head_sha=stamp.head_sha,
        tree_sha=stamp.tree_sha,
        change_id=stamp.change_id,
        delivery=stamp.delivery,
        **fields,
    )


def rubric_ref(rubric: Rubric) -> RubricRef:
    """The full `{id, version, scale, criteria}` reference recorded with scores."""
    return RubricRef(
        id=rubric.id,
        version=rubric.version,
        scale=ScaleRef(
            min=rubric.scale.min, max=rubric.scale.max, open=True if rubric.scale.open else None
        ),
        criteria={
            c.id: CriterionRef(weight=c.weight, nullable=c.nullable) for c in rubric.criteria
        },
    )


def scored(rubric: Rubric, scores: Mapping[str, ScoreValue]) -> dict[str, Any]:
    """The scoring fields of an event: rubric, scores, totals and verdict."""
    known = rubric.known(scores)
    result = scoring.score(rubric, known)
    return {
        "rubric": rubric_ref(rubric),
        "scores": known,
        "weighted_total": result.weighted_total,
        "normalized": result.normalized,
        "verdict": result.verdict,
    }


def report_source(report: ScoreReport | None) -> str:
    """`judge` when the judge scored any criterion, else `auto`."""
    if report is not None and any(c.source == "judge" for c in report.criteria):
        return "judge"
    return "auto"


def report_evidence(report: ScoreReport | None) -> list[dict[str, Any]]:
    """The evidence entries of an automatic report (findings capped, texts shortened)."""
    if report is None:
        return [{"type": "note", "text": "no automatic report was produced for this version"}]
    entries: list[dict[str, Any]] = [
        {
            "type": "criterion",
            "id": item.id,
            "source": item.source,
            "score": item.score,
            "evidence": [_short(text) for text in item.evidence[:MAX_EVIDENCE_ITEMS]],
        }
        for item in report.criteria
    ]
    entries += [
        {"type": "check", "id": c.id, "status": c.status, "criterion": c.criterion}
        for c in report.checks
    ]
    findings = [(c.id, f) for c in report.checks for f in c.findings]
    entries += [
        {"type": "finding", "check": check, **_finding(f.as_dict())}
        for check, f in findings[:MAX_FINDINGS]
    ]
    if len(findings) > MAX_FINDINGS:
        entries.append({"type": "note", "text": f"{len(findings) - MAX_FINDINGS} more findings"})
    if report.not_scored:
        entries.append({"type": "not_scored", "ids": list(report.not_scored)})
    entries += [{"type": "note", "text": _short(note)} for note in report.notes]
    return entries


def source_evidence(sources: Mapping[str, str]) -> list[dict[str, Any]]:
    """Evidence entries saying where each criterion score came from."""
    return [{"type": "criterion", "id": cid, "source": src} for cid, src in sources.items()]


def judge_info(report: ScoreReport | None) -> JudgeInfo | None:
    """The judge's model, prompt version and token use, when a judge ran."""
    if report is None or not report.judge or "model" not in report.judge:
        return None
    wanted = {k: v for k, v in report.judge.items() if k in JudgeInfo.__dataclass_fields__}
    try:
        return JudgeInfo.model_validate(wanted)
    except ValidationError:
        return None


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


def checks_of(checks: Sequence[CheckResult], criterion: str) -> str:
    return ", ".join(c.id for c in checks if c.criterion == criterion)


def kept_evidence(previous: AutoScore | None, replaced: set[str]) -> list[dict[str, Any]]:
    """The version's automatic evidence without earlier graders entries or replaced criteria."""
    return [
        dict(entry)
        for entry in (previous.evidence if previous else ())
        if not entry.get("untrusted")
        and not (entry.get("type") == "criterion" and entry.get("id") in replaced)
    ]


def graders_evidence(
    run_id: int,
    checks: Sequence[CheckResult],
    filled: Mapping[str, ScoreValue],
    notes: Sequence[str],
) -> list[dict[str, Any]]:
    """The graders' evidence entries, every one marked untrusted."""
    mark = {"untrusted": True, "run_id": run_id}
    entries: list[dict[str, Any]] = [{"type": "note", "text": LABEL.format(run=run_id), **mark}]
    entries += [
        {
            "type": "criterion",
            "id": cid,
            "source": "auto",
            "score": value,
            "check": checks_of(checks, cid),
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


def _finding(data: dict[str, Any]) -> dict[str, Any]:
    return {**data, "message": _short(str(data.get("message", "")))}


def _short(text: str) -> str:
    return text if len(text) <= MAX_EVIDENCE_TEXT else text[: MAX_EVIDENCE_TEXT - 1] + "…"


def _role(role: str) -> ActorRole:
    return cast(ActorRole, role) if role in get_args(ActorRole) else "none"
