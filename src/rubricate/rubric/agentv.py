"""The two AgentV dialects: `assertions:` and the `rubric` evaluator (pure: no I/O).

File-level criteria are shared; each case (`tests[]` or `evalcases[]`) adds its own after them
and yields its own rubric. A rubric is analytic (0-10) when any criterion has score ranges,
else a checklist (0-1); it passes at a normalized 0.8. Plain strings in `assertions:` are
required criteria; plain strings in evaluator `rubrics:` are not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rubricate.rubric.build import Draft, Identity, Shape, build_rubric
from rubricate.rubric.files import AgentVCriterion, AssertionsFile, EvaluatorFile, Execution
from rubricate.rubric.model import Dialect, PassRule, Rubric, Scale
from rubricate.yamlsource import Loc, Problems, did_you_mean

CHECKLIST = Shape(
    "agentv-assertions", Scale(min=0, max=1, kind="checklist"), PassRule(min_total=0.8)
)
ANALYTIC = Shape(
    "agentv-assertions", Scale(min=0, max=10, kind="analytic"), PassRule(min_total=8.0)
)
RUBRICS_ASSERTION = "rubrics"
RUBRIC_EVALUATOR = "rubric"


@dataclass(frozen=True)
class _Case:
    id: str
    loc: Loc
    drafts: list[Draft]


def assertions_rubrics(
    file: AssertionsFile, identity: Identity, problems: Problems
) -> list[Rubric]:
    """One rubric per test (or one for the file), from `assertions:` lists."""
    shared = _assertion_drafts(file.assertions or [], ("assertions",), problems)
    cases = [
        _Case(
            test.id,
            ("tests", i),
            _assertion_drafts(test.assertions or [], ("tests", i, "assertions"), problems),
        )
        for i, test in enumerate(file.tests or [])
    ]
    return _combine("agentv-assertions", identity, shared, cases, problems)


def evaluator_rubrics(file: EvaluatorFile, identity: Identity, problems: Problems) -> list[Rubric]:
    """One rubric per eval case (or one for the file), from evaluator `rubrics:` lists."""
    shared = _rubric_drafts(file.rubrics or [], ("rubrics",))
    shared += _evaluator_drafts(file.execution, ("execution",), problems)
    shared += _evaluators_drafts(file.evaluators or [], ("evaluators",), problems)
    cases = []
    for i, case in enumerate(file.evalcases or []):
        loc: Loc = ("evalcases", i)
        own = _rubric_drafts(case.rubrics or [], (*loc, "rubrics"))
        own += _evaluator_drafts(case.execution, (*loc, "execution"), problems)
        cases.append(_Case(case.id, loc, own))
    return _combine("agentv-evaluator", identity, shared, cases, problems)


def _assertion_drafts(items: Sequence[Any], loc: Loc, problems: Problems) -> list[Draft]:
    drafts: list[Draft] = []
    for i, item in enumerate(items):
        here = (*loc, i)
        if isinstance(item, str):
            drafts.append(Draft(here, item, plain_required=True))
        elif item.type != RUBRICS_ASSERTION:
            _ignored(problems, here, "assertion", item.type, RUBRICS_ASSERTION)
        elif item.criteria is None:
            problems.error(here, "missing required key 'criteria' in a `type: rubrics` assertion")
        else:
            criteria = item.criteria
            drafts += [
                Draft((*here, "criteria", j), c, plain_required=True)
                for j, c in enumerate(criteria)
            ]
    return drafts


def _rubric_drafts(items: Sequence[str | AgentVCriterion], loc: Loc) -> list[Draft]:
    return [Draft((*loc, i), item) for i, item in enumerate(items)]


def _evaluator_drafts(execution: Execution | None, loc: Loc, problems: Problems) -> list[Draft]:
    if execution is None:
        return []
    return _evaluators_drafts(execution.evaluators or [], (*loc, "evaluators"), problems)


def _evaluators_drafts(evaluators: Sequence[Any], loc: Loc, problems: Problems) -> list[Draft]:
    drafts: list[Draft] = []
    for i, evaluator in enumerate(evaluators):
        here = (*loc, i)
        if evaluator.type != RUBRIC_EVALUATOR:
            _ignored(problems, here, "evaluator", evaluator.type, RUBRIC_EVALUATOR)
        elif evaluator.rubrics is None:
            problems.error(here, "missing required key 'rubrics' in a `type: rubric` evaluator")
        else:
            drafts += _rubric_drafts(evaluator.rubrics, (*here, "rubrics"))
    return drafts


def _ignored(problems: Problems, loc: Loc, what: str, kind: str, wanted: str) -> None:
    hint = did_you_mean(kind, [wanted])
    problems.warn((*loc, "type"), f"{what} of type {kind!r} is not a rubric and is ignored{hint}")


def _combine(
    dialect: Dialect,
    identity: Identity,
    shared: list[Draft],
    cases: list[_Case],
    problems: Problems,
) -> list[Rubric]:
    if not cases:
        rubric = build_rubric(problems, identity, _shape(dialect, shared), shared, None)
        return [] if rubric is None else [rubric]
    _check_case_ids(cases, problems)
    rubrics = []
    for case in cases:
        drafts = shared + case.drafts
        rubric = build_rubric(
            problems, identity, _shape(dialect, drafts), drafts, (case.id, case.loc)
        )
        if rubric is not None:
            rubrics.append(rubric)
    return rubrics


def _shape(dialect: Dialect, drafts: list[Draft]) -> Shape:
    analytic = any(getattr(d.spec, "score_ranges", None) is not None for d in drafts)
    base = ANALYTIC if analytic else CHECKLIST
    return Shape(dialect, base.scale, base.pass_rule)


def _check_case_ids(cases: list[_Case], problems: Problems) -> None:
    first: dict[str, int] = {}
    for case in cases:
        loc = (*case.loc, "id")
        if not case.id.strip() or "#" in case.id:
            problems.error(loc, f"case id {case.id!r} should be non-empty and must not contain '#'")
        elif case.id in first:
            problems.error(
                loc, f"duplicate case id {case.id!r} (first defined at line {first[case.id]})"
            )
        else:
            first[case.id] = problems.locator.at(loc)[0]
