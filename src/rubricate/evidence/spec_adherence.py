"""The spec_adherence check: the change does what the spec asks, and only that (pure).

Coverage is the share of the spec's open checklist items, the spec's named deliverables and the
config's required deliverables that the change touches (`spec.item_covered`). Scope: when the
config (`scope:`) or the spec declares the paths in scope, each touched path outside them
counts against; so does a path the spec lists as out of scope. The value is coverage (1 when
there is nothing to cover) times (1 - 0.5 * out-of-scope share). With no checklist, no
deliverables and no declared scope, `spec_adherence` stays unscored.
Certain: a named or required deliverable missing, an item naming a path the change does not
touch, a path outside the declared scope. A note: an item that names no path and whose words
the change does not share (words are a guess), so such items alone never take the value below
the middle of the scale.
"""

from __future__ import annotations

from rubricate.config import Config
from rubricate.evidence.file_kinds import extension, glob_regex, is_glob
from rubricate.evidence.results import CheckResult, Finding, check_result, short_list
from rubricate.evidence.snapshot import Snapshot
from rubricate.evidence.spec import Spec, change_vocabulary, item_covered, touches

SPEC_CHECK = "spec_adherence"
SPEC_CRITERION = "spec_adherence"
OUT_OF_SCOPE_WEIGHT = 0.5
MAX_SCOPE_FINDINGS = 20


def spec_adherence_check(snapshot: Snapshot, config: Config, spec: Spec) -> CheckResult:
    """Compare the change with the spec's checklist, deliverables and declared scope."""
    findings: list[Finding] = []
    evidence: list[str] = []
    covered, total, guessed = _coverage(snapshot, config, spec, findings, evidence)
    scope = (*config.scope, *spec.scope)
    outside = _out_of_scope(snapshot, scope, spec.out_of_scope)
    _scope_findings(outside, findings)
    if not total and not scope and not spec.out_of_scope:
        evidence.append("the spec has no checklist, named deliverables or scope to compare against")
        return check_result(
            SPEC_CHECK, findings, criterion=SPEC_CRITERION, value=None, evidence=evidence
        )
    touched = len(snapshot.touched_paths)
    share = len(outside) / touched if touched else 0.0
    if scope or spec.out_of_scope:
        evidence.append(f"{touched - len(outside)} of {touched} touched paths are in scope")
    scope_factor = 1.0 - OUT_OF_SCOPE_WEIGHT * share
    value = (covered / total if total else 1.0) * scope_factor
    certain = ((covered + guessed) / total if total else 1.0) * scope_factor
    return check_result(
        SPEC_CHECK,
        findings,
        criterion=SPEC_CRITERION,
        value=value,
        evidence=evidence,
        certain_value=certain,
    )


def _coverage(
    snapshot: Snapshot, config: Config, spec: Spec, findings: list[Finding], evidence: list[str]
) -> tuple[int, int, int]:
    """Covered and total items, and how many uncovered ones are matched by words alone."""
    covered = total = guessed = 0
    if spec.open_items:
        words = change_vocabulary(snapshot)
        done = [item for item in spec.open_items if item_covered(item, snapshot, words)]
        for item in spec.open_items:
            if item not in done:
                guessed += not item.paths
                findings.append(
                    Finding(
                        SPEC_CHECK,
                        f"not covered: {item.text}",
                        None,
                        item.line,
                        "info",
                        certain=bool(item.paths),
                        rule="spec-item",
                    )
                )
        evidence.append(f"{len(done)} of {len(spec.open_items)} open checklist items covered")
        covered, total = len(done), len(spec.open_items)
    named = list(
        dict.fromkeys([*spec.deliverables, *(d.glob for d in config.deliverables if d.required)])
    )
    if named:
        hit = [name for name in named if touches(name, snapshot)]
        for name in named:
            if name not in hit:
                message = f"deliverable not in the change: {name}"
                findings.append(
                    Finding(
                        SPEC_CHECK, message, severity="warning", certain=True, rule="deliverable"
                    )
                )
        missed = [name for name in named if name not in hit]
        listed = f": {short_list(hit)}" if hit else f"; missing: {short_list(missed)}"
        evidence.append(
            f"{len(hit)} of {len(named)} deliverables the spec names are in the change{listed}"
        )
        covered, total = covered + len(hit), total + len(named)
    return covered, total, guessed


def _out_of_scope(
    snapshot: Snapshot, scope: tuple[str, ...], excluded: tuple[str, ...]
) -> list[str]:
    inside = [glob_regex(_as_directory(pattern)) for pattern in scope]
    banned = [glob_regex(pattern) for pattern in excluded]
    found: list[str] = []
    for path in sorted(snapshot.touched_paths):
        if any(r.match(path) for r in banned) or (
            inside and not any(r.match(path) for r in inside)
        ):
            found.append(path)
    return found


def _as_directory(pattern: str) -> str:
    """A bare name without an extension (`src`) means the directory `src/`."""
    return pattern if is_glob(pattern) or extension(pattern) else pattern + "/"


def _scope_findings(outside: list[str], findings: list[Finding]) -> None:
    for path in outside[:MAX_SCOPE_FINDINGS]:
        message = "changed outside the declared scope"
        findings.append(Finding(SPEC_CHECK, message, path, None, "warning", True, "scope"))
    if len(outside) > MAX_SCOPE_FINDINGS:
        extra = len(outside) - MAX_SCOPE_FINDINGS
        message = f"... and {extra} more paths outside the scope"
        findings.append(Finding(SPEC_CHECK, message, severity="warning", certain=True))
