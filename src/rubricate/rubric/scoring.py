"""The exact scoring math of DESIGN.md section 2 (pure: no I/O).

- `weighted_total = sum(w*s) / sum(w)` over criteria that have a score; nulls are left out.
- `normalized = (x - min) / (max - min)`.
- verdict `pass` only when complete and every bar is cleared; `fail` as soon as it is decided
  (a scored criterion below a bar, or the best reachable total below `min_total`, even with
  scores missing); else `incomplete` (not decided yet).
- every comparison uses a tolerance of 1e-9.

`check` and `score` are the one entry point for every rubric: an AgentV test (a rubric with
graders) is checked and scored per grader by the AgentV rules of `agentv.score`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from rubricate.errors import ScoreError
from rubricate.rubric.agentv.grade import check_grader_value
from rubricate.rubric.agentv.score import score_graders
from rubricate.rubric.model import (
    TOLERANCE,
    Criterion,
    CriterionResult,
    Rubric,
    Scale,
    ScoreResult,
    ScoreValue,
    Verdict,
    at_least,
    normalize,
)

REQUIRED_NORMALIZED = 0.7


def numeric(scale: Scale, value: float | bool) -> float:
    """A score as a number on the scale: a binary answer maps to the scale's ends."""
    if isinstance(value, bool):
        return scale.max if value else scale.min
    if not isinstance(value, (int, float)):
        raise ScoreError(f"{value!r} is not a score: expected a number, true/false or null")
    try:
        return float(value)
    except OverflowError:
        raise ScoreError(f"{value} is too large to be a score") from None


def allowed_range(rubric: Rubric, criterion: Criterion) -> str:
    """Human text for the values a criterion accepts."""
    scale = rubric.scale
    if scale.binary and criterion.continuous:
        text = f"a number from {_fmt(scale.min)} to {_fmt(scale.max)} (or true/false)"
    elif scale.binary:
        text = "true/false or 1/0"
    elif scale.open:
        text = f"a number >= {_fmt(scale.min)}"
    else:
        text = f"a number from {_fmt(scale.min)} to {_fmt(scale.max)}"
    if scale.kind == "analytic":
        text += " (or true/false)"
    return text + (", or null" if criterion.nullable else "")


def check(rubric: Rubric, criterion_id: str, value: ScoreValue) -> ScoreValue:
    """Validate one score for a criterion of any rubric and return it in canonical form.

    For an AgentV test a number AgentV would refuse as a reply is refused too, before the range
    is checked (see `agentv.grade.check_grader_value`)."""
    criterion = _criterion_or_error(rubric, criterion_id)
    if value is None:
        if criterion.nullable:
            return None
        raise ScoreError(
            f"{criterion_id}: null is not allowed; expected {allowed_range(rubric, criterion)}"
        )
    scale = rubric.scale
    if isinstance(value, bool):
        if scale.kind in ("checklist", "analytic"):
            return value if scale.binary else numeric(scale, value)
        word = "true" if value else "false"
        raise ScoreError(
            f"{criterion_id}: {word} is not a number; expected {allowed_range(rubric, criterion)}"
        )
    expected = allowed_range(rubric, criterion)
    if not isinstance(value, (int, float)):
        raise ScoreError(f"{criterion_id}: {value!r} is not a score; expected {expected}")
    number = _as_float(value)
    if rubric.graders:
        check_grader_value(rubric, criterion, number)
    checklist = scale.binary and not criterion.continuous
    if checklist and number in (0.0, 1.0):
        return number == 1.0
    if checklist or not math.isfinite(number) or not _in_range(scale, number):
        raise ScoreError(f"{criterion_id}: {_fmt(number)} is out of range; expected {expected}")
    return number


def weighted_total(rubric: Rubric, scores: Mapping[str, ScoreValue]) -> float | None:
    """Plain-float `sum(w*s)/sum(w)` over the criteria that have a non-null score."""
    given = [(c.weight, scores.get(c.id)) for c in rubric.criteria]
    pairs = [(weight, numeric(rubric.scale, v)) for weight, v in given if v is not None]
    denominator = sum(weight for weight, _ in pairs)
    if not denominator:
        return None
    numerator = sum(weight * value for weight, value in pairs)
    if math.isinf(numerator):  # huge scores on an open scale: the same mean, without overflow
        return sum(weight / denominator * value for weight, value in pairs)
    return numerator / denominator


def score(rubric: Rubric, scores: Mapping[str, ScoreValue]) -> ScoreResult:
    """Apply the scoring rules to already checked scores (see `check`); an AgentV test with
    graders is scored per grader (`agentv.score.score_graders`)."""
    if rubric.graders:
        return score_graders(rubric, scores)
    unknown = sorted(set(scores) - set(rubric.ids))
    if unknown:
        raise ScoreError(f"unknown criterion {unknown[0]!r}; valid ids: {', '.join(rubric.ids)}")
    missing = tuple(c.id for c in rubric.criteria if scores.get(c.id) is None and not c.nullable)
    results = tuple(
        CriterionResult(c.id, scores.get(c.id), _criterion_passed(rubric, c, scores.get(c.id)))
        for c in rubric.criteria
    )
    failed = tuple(r.id for r in results if r.passed is False)
    raw = weighted_total(rubric, scores)
    total = None if raw is None else round(raw, 10)
    normalized = None if raw is None else round(normalize(rubric.scale, raw), 10)
    best = best_reachable_total(rubric, scores, missing) if missing else None
    verdict: Verdict
    if missing or raw is None:
        blocking = _blocking(rubric, results)
        verdict = "fail" if _decided_fail(rubric, blocking, best) else "incomplete"
    elif _passes(rubric, raw, results):
        verdict = "pass"
    else:
        verdict = "fail"
    best_shown = None if best is None else round(best, 10)
    return ScoreResult(
        rubric.id, rubric.version, total, normalized, verdict, results, failed, missing, best_shown
    )


def best_reachable_total(
    rubric: Rubric, scores: Mapping[str, ScoreValue], missing: tuple[str, ...]
) -> float | None:
    """The weighted total when every missing criterion gets the top score (None: unbounded)."""
    if rubric.scale.open or not missing:
        return None
    best: dict[str, ScoreValue] = {**scores, **dict.fromkeys(missing, rubric.scale.max)}
    return weighted_total(rubric, best)


def _decided_fail(rubric: Rubric, blocking: tuple[str, ...], best: float | None) -> bool:
    """True when no values of the missing scores could make the rubric pass."""
    if blocking:
        return True
    floor = rubric.pass_rule.min_total
    return floor is not None and best is not None and not at_least(best, floor)


def _passes(rubric: Rubric, raw_total: float, results: tuple[CriterionResult, ...]) -> bool:
    rule = rubric.pass_rule
    if rule.min_total is not None and not at_least(raw_total, rule.min_total):
        return False
    return not _blocking(rubric, results)


def _blocking(rubric: Rubric, results: tuple[CriterionResult, ...]) -> tuple[str, ...]:
    """Scored criteria below `min_each` or their own bar: each one alone fails the rubric."""
    by_id = {c.id: c for c in rubric.criteria}
    floor = rubric.pass_rule.min_each
    blocking: list[str] = []
    for result in results:
        if result.score is None:
            continue
        value = numeric(rubric.scale, result.score)
        criterion = by_id[result.id]
        below_floor = floor is not None and not at_least(value, floor)
        own = _has_own_bar(criterion) and not _clears_own_bar(rubric, criterion, value)
        if below_floor or own:
            blocking.append(result.id)
    return tuple(blocking)


def _has_own_bar(criterion: Criterion) -> bool:
    return criterion.min_score is not None or criterion.required


def _clears_own_bar(rubric: Rubric, criterion: Criterion, value: float) -> bool:
    bar = criterion.min_score if criterion.min_score is not None else REQUIRED_NORMALIZED
    if rubric.scale.binary and criterion.min_score is None:
        return at_least(value, rubric.scale.max)
    return at_least(normalize(rubric.scale, value), bar)


def _criterion_passed(rubric: Rubric, criterion: Criterion, value: ScoreValue) -> bool | None:
    """Whether a criterion clears its own bars; a checklist item passes when satisfied."""
    if value is None:
        return None
    number = numeric(rubric.scale, value)
    floor = rubric.pass_rule.min_each
    if floor is not None and not at_least(number, floor):
        return False
    if _has_own_bar(criterion):
        return _clears_own_bar(rubric, criterion, number)
    if rubric.scale.binary:
        return at_least(number, rubric.scale.max)
    return True


def _criterion_or_error(rubric: Rubric, criterion_id: str) -> Criterion:
    try:
        return rubric.criterion(criterion_id)
    except KeyError:
        raise ScoreError(
            f"unknown criterion {criterion_id!r}; valid ids: {', '.join(rubric.ids)}"
        ) from None


def _in_range(scale: Scale, number: float) -> bool:
    if number < scale.min - TOLERANCE:
        return False
    return scale.open or number <= scale.max + TOLERANCE


def _as_float(value: float) -> float:
    """A number as a float; an int too large for a float becomes an infinity of its sign."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _fmt(number: float) -> str:
    return f"{number:g}"


def resolve_criterion_id(rubric: Rubric, prefix: str) -> str:
    """The criterion id named exactly, or by a unique prefix (case-insensitive)."""
    wanted = prefix.lower()
    for cid in rubric.ids:
        if cid.lower() == wanted:
            return cid
    matches = [cid for cid in rubric.ids if cid.lower().startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise ScoreError(f"{prefix!r} is ambiguous: it matches {', '.join(matches)}")
    raise ScoreError(f"unknown criterion {prefix!r}; valid ids: {', '.join(rubric.ids)}")
