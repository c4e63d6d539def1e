"""One rubric per AgentV test, made of its rubric graders (pure: no I/O).

Each grader keeps AgentV's own criterion ids (`rubric-1`, ... per grader list); an id that two
graders of one test share is qualified as `GRADER.ID`. The rubric is analytic (0-10) when any
grader is, else a checklist (0-1); it passes when AgentV's test score reaches the test's
threshold (default 0.8: AgentV `graders/scoring.ts` line 24 at 58f316c).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from rubricate.rubric.agentv.criteria import CriterionDraft
from rubricate.rubric.agentv.draft import GraderDraft
from rubricate.rubric.build import Draft, Identity, build_criterion, check_request_first
from rubricate.rubric.located import Located
from rubricate.rubric.model import Criterion, Dialect, Grader, PassRule, Rubric, Scale
from rubricate.yamlsource import Problems

DEFAULT_THRESHOLD = 0.8
CHECKLIST = Scale(min=0, max=1, kind="checklist")
ANALYTIC = Scale(min=0, max=10, kind="analytic")
_NOT_SLUG = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass
class CaseDraft:
    """One test (or the file, when it has no tests): its graders and its threshold."""

    id: str | None
    where: Located
    graders: list[GraderDraft] = field(default_factory=list)
    threshold: float = DEFAULT_THRESHOLD
    left_out: list[str] = field(default_factory=list)


def build_cases(
    dialect: Dialect,
    identity: Identity,
    cases: list[CaseDraft],
    problems: Problems,
    referenced_errors: bool = False,
) -> list[Rubric]:
    """The rubric of each test that has rubric graders; warn about the tests that have none
    (`referenced_errors`: a file it refers to has errors, which say why instead)."""
    _check_case_ids(cases, problems)
    rubrics = []
    for case in cases:
        if not case.graders:
            if not case.where.problems.errors:
                _warn_empty(case)
            continue
        rubric = _case_rubric(dialect, identity, case)
        if rubric is not None:
            rubrics.append(rubric)
    if not rubrics and not problems.errors and not referenced_errors and not _any_errors(cases):
        what = ", ".join(sorted({kind for c in cases for kind in c.left_out})) or "none"
        problems.error((), f"no rubric criteria in this file (its checks: {what})")
    return rubrics


def _any_errors(cases: list[CaseDraft]) -> bool:
    return any(g.where.problems.errors for c in cases for g in c.graders) or any(
        c.where.problems.errors for c in cases
    )


def _warn_empty(case: CaseDraft) -> None:
    name = f"test {case.id!r}" if case.id is not None else "this file"
    if case.left_out:
        checks = ", ".join(dict.fromkeys(case.left_out))
        case.where.warn(f"{name} has no rubric criteria (only {checks}); it is left out")
    else:
        case.where.warn(f"{name} has no assertions, so it has no rubric; it is left out")


def _case_rubric(dialect: Dialect, identity: Identity, case: CaseDraft) -> Rubric | None:
    analytic = any(g.analytic for g in case.graders)
    scale = ANALYTIC if analytic else CHECKLIST
    before = _error_count(case)
    names = _grader_ids(case.graders)
    built = [(g, names[i], _criteria(g, scale)) for i, g in enumerate(case.graders)]
    if _error_count(case) > before:
        return None
    shared = Counter(c.id for _, _, pairs in built for c in {x.id: x for x, _ in pairs}.values())
    pairs: list[tuple[Criterion, Draft]] = []
    graders: list[Grader] = []
    for grader, gid, own in built:
        own = [(_qualified(c, gid) if shared[c.id] > 1 else c, d) for c, d in own]
        if grader.required and grader.analytic:  # its criteria gate the test through it
            own = [(_gating(c, grader, len(own)), d) for c, d in own]
        pairs += own
        graders.append(_grader(grader, gid, [c for c, _ in own]))
    check_request_first(pairs, case.where.problems)
    if _error_count(case) > before:
        return None
    criteria = [c for c, _ in pairs]
    case_id = case.id
    return Rubric(
        id=identity.id if case_id is None else f"{identity.id}#{case_id}",
        version=identity.version,
        dialect=dialect,
        scale=scale,
        pass_rule=PassRule(min_total=case.threshold * scale.max),
        criteria=tuple(criteria),
        source=identity.source,
        case=case_id,
        description=identity.description,
        graders=tuple(graders),
    )


def _error_count(case: CaseDraft) -> int:
    sources = {id(case.where.problems): case.where.problems}
    for grader in case.graders:
        sources[id(grader.where.problems)] = grader.where.problems
        for item in grader.criteria:
            sources[id(item.where.problems)] = item.where.problems
    return sum(len(p.errors) for p in sources.values())


def _criteria(grader: GraderDraft, scale: Scale) -> list[tuple[Criterion, Draft]]:
    built = []
    first: dict[str, int] = {}
    for item in grader.criteria:
        criterion = build_criterion(item.where.problems, item.draft, item.number, scale)
        if criterion is None:
            continue
        if _implied(criterion, item):
            criterion = criterion.model_copy(update={"implied": True})
        if grader.continuous:
            criterion = criterion.model_copy(update={"continuous": True})
        folded = criterion.id.lower()
        if folded in first:
            line = first[folded]
            message = f"duplicate criterion id {criterion.id!r} (first defined at line {line})"
            item.where.error(message)
            continue
        first[folded] = item.where.problems.locator.at(item.where.loc)[0]
        built.append((criterion, item.draft))
    return built


def _implied(criterion: Criterion, item: CriterionDraft) -> bool:
    """True for a criterion object that is required only by AgentV's checklist default (head
    `grader-parser.ts` 2565); the AgentV docs in the seeds say `required` defaults to false."""
    raw = item.where.value
    written = isinstance(raw, dict) and "required" in raw
    return criterion.required and not isinstance(item.draft.spec, str) and not written


def _grader_ids(graders: list[GraderDraft]) -> list[str]:
    seen: Counter[str] = Counter()
    ids = []
    for grader in graders:
        base = _NOT_SLUG.sub("-", grader.name).strip("-.") or grader.type
        seen[base] += 1
        ids.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
    return ids


def _gating(criterion: Criterion, grader: GraderDraft, count: int) -> Criterion:
    """A criterion of a required analytic grader is required; alone, it takes the grader's bar."""
    update: dict[str, object] = {"required": True}
    if count == 1 and criterion.min_score is None:
        update["min_score"] = grader.min_score
    return criterion.model_copy(update=update)


def _qualified(criterion: Criterion, grader_id: str) -> Criterion:
    return criterion.model_copy(update={"id": f"{grader_id}.{criterion.id}"})


def _grader(grader: GraderDraft, gid: str, criteria: list[Criterion]) -> Grader:
    return Grader(
        id=gid,
        type=grader.type,
        criteria=tuple(c.id for c in criteria),
        weight=grader.weight,
        required=grader.required,
        min_score=grader.min_score,
        negate=grader.negate,
        analytic=grader.analytic,
        continuous=grader.continuous,
    )


def _check_case_ids(cases: list[CaseDraft], problems: Problems) -> None:
    first: dict[str, int] = {}
    for case in cases:
        if case.id is None:
            continue
        loc = (*case.where.loc, "id")
        line = case.where.problems.locator.at(loc)[0]
        if not case.id.strip() or "#" in case.id:
            message = f"case id {case.id!r} should be non-empty and must not contain '#'"
            case.where.problems.error(loc, message)
        elif case.id in first:
            message = f"duplicate case id {case.id!r} (first defined at line {first[case.id]})"
            case.where.problems.error(loc, message)
        else:
            first[case.id] = line
