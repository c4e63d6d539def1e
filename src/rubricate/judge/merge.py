"""Merges a judge run into a score report and rescores it (pure: no I/O).

Judge scores replace automatic ones for the criteria the judge assessed, after the hardening
rules of `guard` (the evidence cap, the disagreement bound, required criteria: DESIGN.md §7
and README.md "The LLM judge"); reviewer scores are never replaced. The report gains an
`injection` check, a `judge` check and the `report.judge` record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from rubricate.evidence.results import (
    CheckResult,
    CheckStatus,
    CriterionScore,
    Finding,
    ScoreReport,
)
from rubricate.judge.reply import CriterionJudgment
from rubricate.judge.runner import JudgeRun
from rubricate.judge.scan import CHECK_ID as INJECTION_CHECK
from rubricate.judge.scan import REQUEST_FIELDS
from rubricate.judge.score_choices import (
    as_json_number,
    disagreement_bound,
    evidence_cap,
    nearest_allowed,
    needs_quote,
)
from rubricate.rubric import scoring
from rubricate.rubric.model import TOLERANCE, Criterion, Rubric, ScoreValue
from rubricate.rubric.scoring import numeric

JUDGE_CHECK = "judge"
REQUEST_WHERE = tuple(where for _attribute, where in REQUEST_FIELDS)
INJECTION_FLAG = "{count} possible prompt-injection finding(s) in the PR: review the judge's scores"


def merge_run(report: ScoreReport, run: JudgeRun, injection: Sequence[Finding]) -> ScoreReport:
    """The report with the judge's guarded scores, its checks, notes and `judge` record."""
    baseline = {c.id: c for c in report.criteria if c.source != "judge"}
    judged = {j.id: j for j in run.judgments}
    criteria: list[CriterionScore] = []
    guarded: list[Guarded] = []
    for cid in report.rubric.ids:
        base = baseline.get(cid)
        judgment = judged.get(cid)
        if judgment is None or (base is not None and base.source == "reviewer"):
            criteria += [base] if base is not None else []
            continue
        result = guard(report.rubric, judgment, base.score if base is not None else None)
        guarded.append(result)
        criteria.append(_criterion_score(result, judgment.rationale, judgment.verified, base))
    flags = _flags(guarded, injection)
    checks = [c for c in report.checks if c.id not in (INJECTION_CHECK, JUDGE_CHECK)]
    checks += [_injection_check(injection), _judge_check(run, guarded, flags)]
    scores = {c.id: c.score for c in criteria if c.score is not None}
    return replace(
        report,
        criteria=tuple(criteria),
        checks=tuple(checks),
        result=scoring.score(report.rubric, scores),
        not_scored=tuple(cid for cid in report.rubric.ids if cid not in scores),
        judge=judge_record(run, flags),
        notes=tuple(dict.fromkeys([*_still_true(report.notes, scores), *_notes(run)])),
    )


def _still_true(notes: Sequence[str], scores: Mapping[str, object]) -> list[str]:
    """Drop the `<criterion>: ...` notes about criteria that the judge has now scored."""
    return [note for note in notes if note.split(":", 1)[0] not in scores]


def judge_record(run: JudgeRun, flags: Sequence[str] = ()) -> dict[str, Any]:
    """The `report.judge` dict: model, prompt version, usage, cache hit, gaps and flags."""
    return {
        "model": run.model,
        "prompt_version": run.prompt_version,
        "tokens_in": run.usage.tokens_in,
        "tokens_out": run.usage.tokens_out,
        "latency_ms": run.usage.latency_ms,
        "cached": run.cached,
        "calls": run.usage.calls,
        "attempts": run.usage.attempts,
        "mode": run.usage.mode,
        "not_assessed": list(run.not_assessed),
        "flags": list(flags),
        "errors": list(run.errors),
        "files_seen": len(run.shown.files_seen),
        "files_truncated": list(run.shown.files_truncated),
        "files_left_out": [item.as_dict() for item in run.shown.files_left_out],
        "tokens_estimate": run.shown.tokens_estimate,
        "stripped": [item.as_dict() for item in run.shown.stripped],
    }


def _criterion_score(
    result: Guarded, rationale: str, quotes: tuple[str, ...], base: CriterionScore | None
) -> CriterionScore:
    if not result.use_judge and base is not None:
        return base
    evidence = tuple(f'"{q}"' for q in quotes)
    evidence += (f"judge: {rationale}",) if rationale else ()
    return CriterionScore(result.id, result.score, "judge", evidence + result.notes)


def _flags(guarded: Sequence[Guarded], injection: Sequence[Finding]) -> list[str]:
    flags = [flag for result in guarded for flag in result.flags]
    warnings = [f for f in injection if f.severity != "info"]
    if warnings:
        flags.append(INJECTION_FLAG.format(count=len(warnings)))
    return flags


def _injection_check(findings: Sequence[Finding]) -> CheckResult:
    status: CheckStatus = "warn" if any(f.severity != "info" for f in findings) else "pass"
    return CheckResult(INJECTION_CHECK, status, tuple(findings))


def _judge_check(run: JudgeRun, guarded: Sequence[Guarded], flags: Sequence[str]) -> CheckResult:
    findings = [Finding(JUDGE_CHECK, message, severity="error") for message in run.errors]
    findings += [Finding(JUDGE_CHECK, message) for message in flags]
    findings += _stripped_findings(run)
    findings += [
        Finding(JUDGE_CHECK, f"{result.id}: {note}", severity="info")
        for result in guarded
        for note in result.notes
    ]
    status: CheckStatus = "error" if run.errors else "warn" if flags else "pass"
    usage = run.usage
    evidence = (
        f"model {run.model}, prompt {run.prompt_version}",
        f"{usage.tokens_in} tokens in, {usage.tokens_out} out, {usage.latency_ms} ms,"
        f" {usage.attempts} request(s), mode {usage.mode or 'none'}"
        + (" (cached: what the run originally cost)" if run.cached else ""),
        f"{len(run.shown.files_seen)} files seen, {len(run.shown.files_left_out)} left out",
    )
    return CheckResult(JUDGE_CHECK, status, tuple(findings), evidence=evidence)


def _stripped_findings(run: JudgeRun) -> list[Finding]:
    """Hidden text stripped from a changed file: the judge saw less than the diff shows."""
    fields = set(REQUEST_WHERE)
    return [
        Finding(
            JUDGE_CHECK,
            f"the judge saw less than the diff: {item.what} ({item.removed} bytes) was stripped",
            item.path,
            item.line,
            "info" if item.what == "HTML comment" else "warning",
        )
        for item in run.shown.stripped
        if item.path not in fields
    ]


def _notes(run: JudgeRun) -> list[str]:
    notes = [f"judge error: {message}" for message in run.errors]
    if run.not_assessed:
        notes.append(f"not assessed by the judge: {', '.join(run.not_assessed)}")
    return notes


NO_QUOTE = "no evidence quote"
QUOTE_NOT_FOUND = "no quote found verbatim in the input (text flagged for injection does not count)"
INPUT_FLAGGED = (
    "the judge was shown text flagged as possible prompt injection, so no quote lifts the cap;"
    " a reviewer should decide"
)


@dataclass(frozen=True)
class Guarded:
    """A judge score after the rules: the final score, what changed it, what needs a reviewer."""

    id: str
    score: ScoreValue
    judge_score: ScoreValue
    notes: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    use_judge: bool = True
    """False when the baseline score is kept instead (judge said null where a check scored)."""


def guard(rubric: Rubric, judgment: CriterionJudgment, baseline: ScoreValue | None) -> Guarded:
    """Apply the evidence cap, the disagreement bound and the required rule to one judgment."""
    criterion = rubric.criterion(judgment.id)
    if judgment.score is None:
        return _null_judgment(judgment, baseline)
    value = numeric(rubric.scale, judgment.score)
    notes: list[str] = []
    flags: list[str] = []
    value = _cap(rubric, criterion, value, judgment, notes)
    if baseline is not None:
        base = numeric(rubric.scale, baseline)
        value = _bound(rubric, criterion, value, base, judgment, notes, flags)
        if criterion.required and value > base + TOLERANCE:
            notes.append(
                f"required: the deterministic check gave {_n(base)}; the judge cannot raise it"
            )
            value = base
    final = scoring.check(rubric, judgment.id, value)
    return Guarded(judgment.id, final, judgment.score, tuple(notes), tuple(flags))


def _cap(
    rubric: Rubric,
    criterion: Criterion,
    value: float,
    judgment: CriterionJudgment,
    notes: list[str],
) -> float:
    if not needs_quote(rubric, value) or (judgment.verified and not judgment.input_flagged):
        return value
    cap = evidence_cap(rubric, criterion)
    notes.append(f"capped at {_n(cap)} (judge gave {_n(value)}): {_why_capped(judgment)}")
    return min(value, cap)


def _why_capped(judgment: CriterionJudgment) -> str:
    if judgment.input_flagged:
        return INPUT_FLAGGED
    return QUOTE_NOT_FOUND if judgment.evidence else NO_QUOTE


def _bound(
    rubric: Rubric,
    criterion: Criterion,
    value: float,
    base: float,
    judgment: CriterionJudgment,
    notes: list[str],
    flags: list[str],
) -> float:
    reach = disagreement_bound(rubric)
    raw = numeric(rubric.scale, judgment.score) if judgment.score is not None else value
    if abs(raw - base) > reach + TOLERANCE:
        flags.append(
            f"{criterion.id}: judge gave {_n(raw)}, the heuristic {_n(base)}: they differ by more"
            f" than {_n(reach)}; a reviewer should decide"
        )
    if abs(value - base) <= reach + TOLERANCE:
        return value
    bounded = nearest_allowed(rubric, criterion, base - reach, base + reach, value)
    notes.append(
        f"kept within {_n(reach)} of the heuristic {_n(base)}: {_n(value)} -> {_n(bounded)}"
    )
    return bounded


def _null_judgment(judgment: CriterionJudgment, baseline: ScoreValue | None) -> Guarded:
    if baseline is None:
        return Guarded(judgment.id, None, None, ("judged not applicable",))
    flag = f"{judgment.id}: judge found it not applicable, but a check scored it; the check is kept"
    return Guarded(judgment.id, baseline, None, (), (flag,), use_judge=False)


def _n(value: float) -> str:
    return str(as_json_number(round(value, 6)))
