"""One AgentV grader's math: a criterion's earned score and the grader's score (pure: no I/O).

EntityProcess/agentv at 58f316c, `packages/core/src/evaluation/`: see `score` for the
rules; a checklist grader is `graders/llm-grader.ts` 1785-1823, an analytic one 1858-1923, a
free-form one 588-600, and a grader passes at 0.8 (`graders/scoring.ts` 24-28).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from rubricate.errors import ScoreError
from rubricate.rubric.model import (
    TOLERANCE,
    Criterion,
    Grader,
    Rubric,
    ScoreValue,
    at_least,
)

ANALYTIC_PASS = 7
GRADER_PASS = 0.8
BORDERLINE = 0.6
GraderVerdict = Literal["pass", "fail", "borderline", "incomplete"]


@dataclass(frozen=True)
class Grade:
    score: float
    verdict: GraderVerdict
    failed: tuple[str, ...]


def check_grader_value(rubric: Rubric, criterion: Criterion, number: float) -> None:
    """Raise `ScoreError` for a number AgentV would not accept for this criterion."""
    earned(rubric, criterion, number)


def earned(rubric: Rubric, criterion: Criterion, value: ScoreValue) -> float:
    """A criterion's score as AgentV counts it: 0-1 (satisfied, or the 0-10 reply ÷ 10)."""
    grader = next(g for g in rubric.graders if criterion.id in g.criteria)
    scale = rubric.scale
    if isinstance(value, bool):  # a checked binary answer: the scale's ends
        number = scale.max if value else scale.min
    else:
        number = 0.0 if value is None else float(value)
    span = rubric.scale.max - rubric.scale.min
    if not rubric.scale.min <= number <= rubric.scale.max:
        return min(1.0, max(0.0, (number - rubric.scale.min) / span))
    if criterion.continuous:
        return (number - rubric.scale.min) / span
    if grader.analytic:
        if abs(number - round(number)) > TOLERANCE:
            raise ScoreError(
                f"{criterion.id}: {number:g} is not an integer; AgentV scores analytic criteria "
                "as whole numbers from 0 to 10"
            )
        return round(number) / 10
    fraction = (number - rubric.scale.min) / span
    if fraction not in (0.0, 1.0):
        top = f"{rubric.scale.max:g}"
        raise ScoreError(
            f"{criterion.id}: {number:g} is not a checklist answer; "
            f"score it true/false (0 or {top})"
        )
    return fraction


def grade(
    grader: Grader, criteria: list[Criterion], earned: Mapping[str, float], legacy: bool
) -> Grade:
    total = 0.0
    gained = 0.0
    failed = []
    for criterion in criteria:
        if criterion.id not in earned:
            continue
        value = earned[criterion.id]
        total += criterion.weight
        gained += criterion.weight * value
        if fails_grader(grader, criterion, value):
            failed.append(criterion.id)
    score = min(1.0, max(0.0, gained / total)) if total > 0 else 0.0
    verdict = "fail" if failed else band(score, GRADER_PASS, legacy)
    if grader.negate:
        score = min(1.0, max(0.0, 1 - score))
        verdict = {"pass": "fail", "fail": "pass"}.get(verdict, verdict)  # type: ignore[assignment]
    return Grade(score, verdict, tuple(failed))


def fails_grader(grader: Grader, criterion: Criterion, value: float) -> bool:
    if grader.analytic:
        bar = criterion.min_score
        return bar is not None and not at_least(value, bar)
    return criterion.required and not at_least(value, 1.0)


def band(score: float, threshold: float, legacy: bool) -> GraderVerdict:
    if at_least(score, threshold):
        return "pass"
    if legacy and at_least(score, BORDERLINE):
        return "borderline"
    return "fail"


def criterion_passed(
    rubric: Rubric, criterion: Criterion, earned: Mapping[str, float]
) -> bool | None:
    if criterion.id not in earned:
        return None
    grader = next(g for g in rubric.graders if criterion.id in g.criteria)
    value = earned[criterion.id]
    if criterion.continuous:
        return at_least(value, GRADER_PASS)
    if grader.analytic:
        bar = criterion.min_score
        return (bar is None or at_least(value, bar)) and at_least(value * 10, ANALYTIC_PASS)
    return at_least(value, 1.0)
