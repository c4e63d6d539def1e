"""The FIRST_SUBMISSION score of a change from automatic evidence (pure: snapshot in, report out).

Checks feed the rubric criteria with these exact ids; a rubric without them gets nothing:

| check          | criterion            |
|----------------|----------------------|
| format         | `format_correctness` |
| verifiability  | `verifiability`      |
| completeness   | `completeness`       |
| spec_adherence | `spec_adherence`     |

`quality` has no automatic check; it stays unscored unless a grader scores it. Grader results
name their criterion by id or unique prefix; they replace the heuristic of that criterion, and
several graders of one criterion combine by their lowest value. Each check value in [0, 1] is
mapped onto the rubric's scale by `rubricate.evidence.results.to_scale`. Every score has
source `auto` and the evidence of its check.

Two checks live here:
- inputs: what the change contains and which files could not be inspected. It feeds no
  criterion. Binary files, files over 1 MiB (size-checked, not parsed), symlinks, submodules and
  non-UTF-8 text are listed as info findings, so a reader knows what the other checks did not
  see; renames and deletions are counted in the evidence.
- spec_adherence: the change does what the spec asks, and only that. Coverage is the share of
  the spec's open checklist items, the spec's named deliverables and the config's required
  deliverables that the change touches (`spec.item_covered`). Scope: when the config (`scope:`)
  or the spec declares the paths in scope, each touched path outside them counts against; so
  does a path the spec lists as out of scope. The value is coverage (1 when there is nothing to
  cover) times (1 - 0.5 * out-of-scope share). With no checklist, no deliverables and no
  declared scope, `spec_adherence` stays unscored: the judge and reviewers refine it.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence

from rubricate.config import Config
from rubricate.errors import ScoreError
from rubricate.evidence.completeness import completeness_check
from rubricate.evidence.deliverable_schemas import compile_deliverable_schemas
from rubricate.evidence.format_check import format_check
from rubricate.evidence.results import (
    SATISFIED_AT,
    CheckResult,
    CriterionScore,
    Finding,
    ScoreReport,
    certain_errors,
    check_result,
    to_scale,
)
from rubricate.evidence.snapshot import Snapshot
from rubricate.evidence.spec import parse_spec
from rubricate.evidence.spec_adherence import spec_adherence_check
from rubricate.evidence.verifiability import verifiability_check
from rubricate.rubric import scoring
from rubricate.rubric.model import TOLERANCE, Rubric
from rubricate.rubric.scoring import numeric, resolve_criterion_id

QUALITY = "quality"


def auto_score(
    snapshot: Snapshot,
    rubric: Rubric,
    config: Config,
    *,
    grader_results: Sequence[CheckResult] = (),
) -> ScoreReport:
    """Run the automatic checks, apply grader results, and score the rubric."""
    spec = parse_spec(snapshot.spec)
    schemas = compile_deliverable_schemas(config, snapshot.base_files)
    heuristics = [
        format_check(snapshot, config, schemas, spec),
        verifiability_check(snapshot),
        completeness_check(snapshot, spec),
        spec_adherence_check(snapshot, config, spec),
    ]
    graders = [_resolve_grader(rubric, result) for result in grader_results]
    heuristics = [
        _with_score(rubric, c) if c.criterion in rubric.ids and _decides(rubric, c) else c
        for c in heuristics
    ]
    graders = [_with_score(rubric, c) if c.criterion in rubric.ids else c for c in graders]
    criteria = _criterion_scores(rubric, heuristics, graders)
    result = scoring.score(rubric, {c.id: scoring.check(rubric, c.id, c.score) for c in criteria})
    scored = {c.id for c in criteria}
    not_scored = tuple(cid for cid in rubric.ids if cid not in scored)
    return ScoreReport(
        rubric=rubric,
        base=snapshot.base_sha,
        head=snapshot.head_sha,
        criteria=criteria,
        checks=(inputs_check(snapshot), *heuristics, *graders),
        result=result,
        not_scored=not_scored,
        notes=_notes(rubric, not_scored, heuristics),
    )


def _resolve_grader(rubric: Rubric, result: CheckResult) -> CheckResult:
    if result.criterion is None or result.criterion in rubric.ids:
        return result
    try:
        return dataclasses.replace(result, criterion=resolve_criterion_id(rubric, result.criterion))
    except ScoreError as exc:
        finding = Finding(result.id, f"scores no criterion: {exc}", severity="warning")
        return dataclasses.replace(result, criterion=None, findings=(*result.findings, finding))


def _with_score(rubric: Rubric, check: CheckResult) -> CheckResult:
    if check.value is None:
        return check
    return dataclasses.replace(check, score=numeric(rubric.scale, _scale_value(rubric, check)))


def _scale_value(rubric: Rubric, check: CheckResult) -> float | bool:
    errors = certain_errors(check.findings)
    defects = any(f.severity in ("error", "warning") for f in check.findings)
    return to_scale(rubric.scale, check.value or 0.0, defects=defects, errors=errors)


def _decides(rubric: Rubric, check: CheckResult) -> bool:
    """False for a heuristic that would leave a checklist criterion unsatisfied on notes alone:
    a checklist has no middle to hold it at, so a reviewer or the judge decides."""
    if not rubric.scale.binary or (check.value or 0.0) >= SATISFIED_AT - TOLERANCE:
        return True
    return any(f.kind == "certain" and f.severity != "info" for f in check.findings)


def _criterion_scores(
    rubric: Rubric, heuristics: list[CheckResult], graders: list[CheckResult]
) -> tuple[CriterionScore, ...]:
    found: list[CriterionScore] = []
    for cid in rubric.ids:
        from_graders = [g for g in graders if g.criterion == cid and g.value is not None]
        from_checks = [
            h
            for h in heuristics
            if h.criterion == cid and h.value is not None and _decides(rubric, h)
        ]
        chosen = min(from_graders, key=lambda g: g.value or 0.0) if from_graders else None
        chosen = chosen or (from_checks[0] if from_checks else None)
        if chosen is None:
            continue
        evidence = [line for g in from_graders for line in g.evidence]
        evidence += [line for h in from_checks for line in h.evidence]
        found.append(CriterionScore(cid, _scale_value(rubric, chosen), "auto", tuple(evidence)))
    return tuple(found)


def _notes(
    rubric: Rubric, not_scored: tuple[str, ...], heuristics: list[CheckResult]
) -> tuple[str, ...]:
    notes: list[str] = []
    by_criterion = {h.criterion: h for h in heuristics}
    for cid in not_scored:
        check = by_criterion.get(cid)
        if cid == QUALITY:
            notes.append(
                f"{cid}: no automatic score without the judge or a grader; a reviewer scores it"
            )
        elif check is not None and check.value is not None and not _decides(rubric, check):
            notes.append(f"{cid}: not scored: notes alone do not decide a checklist criterion")
        elif check is not None and check.evidence:
            notes.append(f"{cid}: not scored: {check.evidence[-1]}")
        else:
            notes.append(f"{cid}: no automatic check scores it; a reviewer or the judge does")
    return tuple(notes)


INPUTS_CHECK = "inputs"
MAX_INPUT_FINDINGS = 50


def inputs_check(snapshot: Snapshot) -> CheckResult:
    """Summarize the change and list the files the checks could not read."""
    counts = Counter(change.status for change in snapshot.changes)
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    files = f"{len(snapshot.changes)} file{'' if len(snapshot.changes) == 1 else 's'} changed"
    evidence = [files + (f" ({summary})" if summary else "")]
    unreadable = [
        (change.path, reason)
        for change in snapshot.changes
        if (reason := change.unreadable_reason) is not None and reason != "deleted"
    ]
    findings = [
        Finding(INPUTS_CHECK, f"not inspected: {reason}", path, None, "info")
        for path, reason in unreadable[:MAX_INPUT_FINDINGS]
    ]
    if len(unreadable) > MAX_INPUT_FINDINGS:
        more = len(unreadable) - MAX_INPUT_FINDINGS
        findings.append(
            Finding(INPUTS_CHECK, f"... and {more} more files not inspected", severity="info")
        )
    for change in snapshot.changes:
        if change.status == "renamed" and change.old_path:
            evidence.append(f"renamed: {change.old_path} -> {change.path}")
    return check_result(INPUTS_CHECK, findings, evidence=evidence[:20])
