"""The hardening rules applied to every judge score, none left to the model (pure: no I/O).

1. Evidence cap: a score at or above 0.75 normalized (4 on 1-5) needs a verbatim quote from
   the input; without one it is capped at the highest score below that bar (3 on 1-5). When
   the injection scan flagged text the call was shown, no quote lifts the cap: a judge that
   obeyed an injection could quote genuine code just as well.
2. Disagreement bound: where a heuristic score exists, the judge's score is kept within half
   the scale's range of it (±2 on 1-5); a larger disagreement is flagged for a reviewer.
3. Required criteria: where a deterministic check scored a required criterion, the judge can
   lower that score but never raise it.
"""

from __future__ import annotations

from dataclasses import dataclass

from rubricate.judge.levels import (
    as_json_number,
    disagreement_bound,
    evidence_cap,
    nearest_allowed,
    needs_quote,
)
from rubricate.judge.reply import CriterionJudgment
from rubricate.rubric.agentv_score import check_any
from rubricate.rubric.model import TOLERANCE, Criterion, Rubric, ScoreValue
from rubricate.rubric.scoring import numeric

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
    final = check_any(rubric, judgment.id, value)
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
