"""Score an AgentV test as AgentV does: per grader, then the test (pure: no I/O).

`scoring.score` hands a rubric with graders here.

EntityProcess/agentv at 58f316c, `packages/core/src/evaluation/`:

- checklist grader: score = satisfied weight / total weight; an unsatisfied required criterion
  makes the grader `fail` (`graders/llm-grader.ts` 1785-1823);
- analytic grader: each integer 0-10 reply ÷ 10, weighted mean; a criterion under its
  `min_score` makes the grader `fail`; a criterion "passes" at 7 (`llm-grader.ts` 1858-1923); a
  reply that is not an integer is refused by AgentV's reply schema (`llm-grader.ts` 170-175)
  and the grader is skipped (765-775), so rubricate refuses it as a score;
- otherwise a grader passes at 0.8 (`graders/scoring.ts` 24-28); `negate` gives 1 - score
  and swaps pass and fail (`graders/scoring.ts` 103-125, `orchestrator.ts` 3114-3129);
- the test score is the weighted mean of its graders' scores, or 0 when a required grader
  scores below its `min_score` (else the threshold); it passes at the threshold
  (`orchestrator.ts` 3131-3155, 3940-3953).
- a free-form grader (`continuous`) is the judge's 0-1 score itself, clamped, and passes at
  0.8 (head `graders/llm-grader.ts` 588-600, `scoreToVerdict` in `graders/scoring.ts` 24-28).
- v2 (`agentv-evaluator`): no required graders, and 0.6 to 0.8 is `borderline`
  (v2.5.8 `evaluators/scoring.ts` 3-11); v4 and v2 read `required: true` on an analytic
  criterion as a bar of 10/10 (v4.42.4 `graders/llm-grader.ts` 1314-1330).

Three deliberate differences: an unscored criterion leaves the result `incomplete` (AgentV drops
it from the denominator), every comparison has the 1e-9 tolerance, and a criterion that fails
its `required` (or `min_score`) bar fails the test, as the AgentV docs say ("failing this
criterion fails the entire eval"), where AgentV's code fails only its grader; AgentV's own
verdict is then kept as `agentv_verdict`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field

from rubricate.errors import ScoreError
from rubricate.rubric.agentv import grade as agentv_grade
from rubricate.rubric.agentv.grade import GRADER_PASS, GraderVerdict, criterion_passed
from rubricate.rubric.model import (
    Criterion,
    CriterionResult,
    Grader,
    Rubric,
    ScoreResult,
    ScoreValue,
    at_least,
)


@dataclass(frozen=True)
class GraderResult:
    """One grader's score (0-1, after `negate`) and verdict; None while criteria are missing."""

    id: str
    score: float | None
    verdict: GraderVerdict
    weight: float
    required: bool
    failed: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    bar: float | None = None
    """A required grader's bar for the test (its `min_score`, else the threshold)."""
    required_met: bool | None = None
    """Whether a required grader reached its bar (None: not required, or not scored yet)."""

    def as_dict(self) -> dict[str, object]:
        """The JSON shape of one grader's result (its fields in order, lists for tuples)."""
        return {**asdict(self), "failed": list(self.failed), "missing": list(self.missing)}


@dataclass(frozen=True)
class AgentVScoreResult(ScoreResult):
    """A test's result with its graders' results and AgentV's threshold and band."""

    graders: tuple[GraderResult, ...] = field(default=())
    threshold: float = GRADER_PASS
    band: str | None = None
    agentv_verdict: str | None = None
    """AgentV's own verdict where it differs: a failed required criterion fails only its
    grader in AgentV, while rubricate fails the test (the seeds' word; DESIGN.md section 2)."""
    required_failed: tuple[str, ...] = field(default=())
    """Required (or `min_score`-gated) criteria that failed their own bar."""

    def as_dict(self) -> dict[str, object]:
        """The common shape, plus `graders`, `threshold`, (v2) `band` and `agentv_verdict`."""
        data = super().as_dict()
        data["graders"] = [g.as_dict() for g in self.graders]
        data["threshold"] = self.threshold
        if self.band is not None:
            data["band"] = self.band
        if self.agentv_verdict is not None:
            data["agentv_verdict"] = self.agentv_verdict
            data["required_failed"] = list(self.required_failed)
        return data


def score_graders(rubric: Rubric, scores: Mapping[str, ScoreValue]) -> AgentVScoreResult:
    """Score every grader, then the test; see the module docstring for the rules."""
    unknown = sorted(set(scores) - set(rubric.ids))
    if unknown:
        raise ScoreError(f"unknown criterion {unknown[0]!r}; valid ids: {', '.join(rubric.ids)}")
    by_id = {c.id: c for c in rubric.criteria}
    earned = {
        cid: agentv_grade.earned(rubric, by_id[cid], v)
        for cid, v in scores.items()
        if v is not None
    }
    threshold = _threshold(rubric)
    legacy = rubric.dialect == "agentv-evaluator"
    results = []
    for grader in rubric.graders:
        criteria = [by_id[cid] for cid in grader.criteria]
        missing = tuple(c.id for c in criteria if c.id not in earned and not c.nullable)
        grade = agentv_grade.grade(grader, criteria, earned, legacy)
        verdict: GraderVerdict = grade.verdict
        if missing:
            verdict = "fail" if grade.failed and not grader.negate else "incomplete"
        bar = _required_bar(grader, threshold)
        met = None if bar is None or missing else at_least(grade.score, bar)
        results.append(
            GraderResult(
                grader.id,
                None if missing else grade.score,
                verdict,
                grader.weight,
                grader.required,
                grade.failed,
                missing,
                bar,
                met,
            )
        )
    return _test_result(rubric, scores, earned, tuple(results), threshold, legacy)


def _threshold(rubric: Rubric) -> float:
    rule = rubric.pass_rule.min_total
    if rule is None:
        return GRADER_PASS
    return (rule - rubric.scale.min) / (rubric.scale.max - rubric.scale.min)


def _filled(
    criteria: list[Criterion], earned: Mapping[str, float], negate: bool
) -> dict[str, float]:
    """The scores with every missing criterion at its best for the test."""
    best = 0.0 if negate else 1.0
    return {c.id: earned.get(c.id, best) for c in criteria}


def _required_bar(grader: Grader, threshold: float) -> float | None:
    if not grader.required:
        return None
    return grader.min_score if grader.min_score is not None else threshold


def _test_score(rubric: Rubric, grades: list[tuple[Grader, float]], threshold: float) -> float:
    for grader, value in grades:
        bar = _required_bar(grader, threshold)
        if bar is not None and not at_least(value, bar):
            return 0.0
    total = sum(g.weight for g, _ in grades)
    return sum(g.weight * v for g, v in grades) / total if total > 0 else 0.0


def _test_result(
    rubric: Rubric,
    scores: Mapping[str, ScoreValue],
    earned: Mapping[str, float],
    graders: tuple[GraderResult, ...],
    threshold: float,
    legacy: bool,
) -> AgentVScoreResult:
    criteria = tuple(
        CriterionResult(c.id, scores.get(c.id), criterion_passed(rubric, c, earned))
        for c in rubric.criteria
    )
    failed = tuple(cid for g in graders for cid in g.failed)
    missing = tuple(cid for g in graders for cid in g.missing)
    by_id = {g.id: g for g in rubric.graders}
    required_failed = tuple(
        cid
        for g in graders
        if not by_id[g.id].negate
        for cid in g.failed
        if not rubric.criterion(cid).implied
    )
    band = None
    span = rubric.scale.max - rubric.scale.min
    best_total = None
    if missing:
        best = _best_case(rubric, earned, threshold, legacy)
        verdict = "fail" if not at_least(best, threshold) else "incomplete"
        total = normalized = None
        best_total = round(rubric.scale.min + best * span, 10)
    else:
        value = _test_score(rubric, [(by_id[g.id], g.score or 0.0) for g in graders], threshold)
        verdict = "pass" if at_least(value, threshold) else "fail"
        if legacy:
            band = agentv_grade.band(value, GRADER_PASS, legacy)
        total = round(rubric.scale.min + value * span, 10)
        normalized = round(value, 10)
    agentv_verdict = None
    if required_failed and verdict != "fail":
        agentv_verdict, verdict = verdict, "fail"
    return AgentVScoreResult(
        rubric.id,
        rubric.version,
        total,
        normalized,
        verdict,  # type: ignore[arg-type]
        criteria,
        failed,
        missing,
        best_total=best_total,
        graders=graders,
        threshold=threshold,
        band=band,
        agentv_verdict=agentv_verdict,
        required_failed=required_failed if agentv_verdict else (),
    )


def _best_case(
    rubric: Rubric, earned: Mapping[str, float], threshold: float, legacy: bool
) -> float:
    by_id = {c.id: c for c in rubric.criteria}
    grades = []
    for grader in rubric.graders:
        criteria = [by_id[cid] for cid in grader.criteria]
        filled = _filled(criteria, earned, grader.negate)
        grades.append((grader, agentv_grade.grade(grader, criteria, filled, legacy).score))
    return _test_score(rubric, grades, threshold)
