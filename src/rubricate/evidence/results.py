"""The result of scoring a change: checks, findings, per-criterion scores, the report's JSON
form, and a check's value on a rubric's scale (`to_scale`) (pure: data, arithmetic).

The certainty rule (a check with notes alone is held at `NOTE_FLOOR`) is in DESIGN.md §1 and
docs/evidence.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from rubricate.numbers import clamp01
from rubricate.rubric.model import TOLERANCE, Rubric, Scale, ScoreResult, ScoreValue

CheckStatus = Literal["pass", "fail", "warn", "skip", "error"]
Severity = Literal["error", "warning", "info"]
FindingKind = Literal["certain", "note"]
NOTE_FLOOR = 0.5
"""The lowest value notes alone can give a check: the middle of the scale."""
ScoreSource = Literal["auto", "judge", "reviewer"]


@dataclass(frozen=True)
class Finding:
    """One observation of a check, located where possible."""

    check: str
    message: str
    path: str | None = None
    line: int | None = None
    severity: Severity = "warning"
    certain: bool | None = None
    """True for certain evidence, False for a note; None: an error is certain, else a note."""
    rule: str = ""
    """The heuristic's rule that made the finding (`todo-marker`, `tests`, ...), when known."""

    @property
    def kind(self) -> FindingKind:
        """`certain` or `note` (see the certainty rule above)."""
        certain = self.severity == "error" if self.certain is None else self.certain
        return "certain" if certain else "note"

    @property
    def kind_label(self) -> str:
        """` (certain)` or ` (note)` for warnings and errors; nothing for info findings."""
        return "" if self.severity == "info" else f" ({self.kind})"

    def as_dict(self) -> dict[str, Any]:
        """The `{path, line, message}` JSON shape (plus severity, kind and rule)."""
        return {
            "path": self.path,
            "line": self.line,
            "message": self.message,
            "severity": self.severity,
            "kind": self.kind,
            "rule": self.rule or None,
        }


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one evidence check, and the criterion it feeds."""

    id: str
    status: CheckStatus
    findings: tuple[Finding, ...] = ()
    criterion: str | None = None
    score: float | None = None
    """The check's score on the rubric's scale, when it scores its criterion."""
    evidence: tuple[str, ...] = ()
    value: float | None = None
    """The check's result in [0, 1] before it is mapped onto the rubric's scale."""

    def as_dict(self) -> dict[str, Any]:
        """The `{id, status, findings}` JSON shape (plus criterion, value and evidence)."""
        return {
            "id": self.id,
            "status": self.status,
            "criterion": self.criterion,
            "value": self.value,
            "score": self.score,
            "evidence": list(self.evidence),
            "findings": [f.as_dict() for f in self.findings],
        }


@dataclass(frozen=True)
class CriterionScore:
    """A criterion's score, where it came from, and the evidence behind it."""

    id: str
    score: ScoreValue
    source: ScoreSource
    evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class ScoreReport:
    """A whole scored change: what `rubricate score` prints and the bot records."""

    rubric: Rubric
    base: str
    head: str
    criteria: tuple[CriterionScore, ...]
    checks: tuple[CheckResult, ...]
    result: ScoreResult
    not_scored: tuple[str, ...] = ()
    judge: dict[str, Any] | None = None
    notes: tuple[str, ...] = field(default=())

    def scores(self) -> dict[str, ScoreValue]:
        """Criterion id to score, for the criteria that have one."""
        return {c.id: c.score for c in self.criteria if c.score is not None}


def check_result(
    check_id: str,
    findings: list[Finding] | tuple[Finding, ...],
    *,
    criterion: str | None = None,
    value: float | None = None,
    evidence: list[str] | tuple[str, ...] = (),
    certain_value: float | None = None,
) -> CheckResult:
    """A check result whose status follows from its findings and whether it has a value.

    With `certain_value` (the value from certain evidence alone), the value is held at
    `NOTE_FLOOR` unless certain evidence takes it lower, and the evidence says so.
    """
    if value is not None and certain_value is not None:
        held = max(value, min(certain_value, NOTE_FLOOR))
        if held > value + TOLERANCE:
            evidence = [
                *evidence,
                f"notes alone never score below the middle of the scale: value {value:.2f} "
                f"held at {held:.2f}",
            ]
            value = held
    severities = {f.severity for f in findings}
    status: CheckStatus
    if "error" in severities:
        status = "fail"
    elif "warning" in severities:
        status = "warn"
    elif value is None and criterion is not None:
        status = "skip"
    else:
        status = "pass"
    return CheckResult(check_id, status, tuple(findings), criterion, None, tuple(evidence), value)


def short_list(items: list[str] | tuple[str, ...], limit: int = 3) -> str:
    """`a, b, c (+4 more)`: the first few items of a long list."""
    shown = ", ".join(items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


SATISFIED_AT = 0.7


def certain_errors(findings: tuple[Finding, ...] | list[Finding]) -> bool:
    """True when a finding is a certain error."""
    return any(f.severity == "error" and f.kind == "certain" for f in findings)


def to_scale(
    scale: Scale, value: float, *, defects: bool = False, errors: bool = False
) -> float | bool:
    """The score on `scale` for a check value in [0, 1] (`errors`: certain errors).

    - Integer scales of at most ten steps (Agora's 1-5, analytic 0-10): `min + round(v * span)`,
      halves rounded up (on 1-5: v < 0.125 -> 1, < 0.375 -> 2, < 0.625 -> 3, < 0.875 -> 4,
      else 5); with `defects` (an error or warning finding) one step below the top.
    - Other scales (open 0..100 axes): linear, `min + v * span`, one decimal; with `defects`
      at most 90% of the span.
    - Checklists (0/1): satisfied iff v >= `SATISFIED_AT`, and never with certain `errors`.
    """
    fraction = clamp01(value)
    if scale.binary:
        return fraction >= SATISFIED_AT - TOLERANCE and not errors
    span = scale.max - scale.min
    if _integer_steps(scale):
        level = scale.min + math.floor(fraction * span + 0.5 + TOLERANCE)
        return float(min(level, scale.max - 1) if defects else level)
    raw = scale.min + fraction * span
    if defects:
        raw = min(raw, scale.min + 0.9 * span)
    return round(raw, 1)


def _integer_steps(scale: Scale) -> bool:
    span = scale.max - scale.min
    return float(scale.min).is_integer() and float(scale.max).is_integer() and 0 < span <= 10


def _graders_json(result: ScoreResult) -> dict[str, object]:
    """The AgentV `graders`/`threshold` keys, as `agentv.score.AgentVScoreResult.as_dict` writes
    them; empty for a result without graders."""
    graders = getattr(result, "graders", ())
    if not graders:
        return {}
    return {
        "graders": [g.as_dict() for g in graders],
        "threshold": getattr(result, "threshold", None),
    }


def report_json(report: ScoreReport) -> dict[str, Any]:
    """The `rubricate score --format json` document (fields are only ever added, never renamed)."""
    result = report.result
    passed = {c.id: c.passed for c in result.criteria}
    weights = {c.id: c.weight for c in report.rubric.criteria}
    return {
        "rubric": {"id": report.rubric.id, "version": report.rubric.version},
        "base": report.base,
        "head": report.head,
        "verdict": result.verdict,
        "weighted_total": result.weighted_total,
        "normalized": result.normalized,
        "criteria": [
            {
                "id": c.id,
                "score": c.score,
                "source": c.source,
                "evidence": list(c.evidence),
                "weight": weights.get(c.id),
                "passed": passed.get(c.id),
            }
            for c in report.criteria
        ],
        **_graders_json(result),
        "checks": [check.as_dict() for check in report.checks],
        "not_scored": list(report.not_scored),
        "failed": list(result.failed),
        "missing": list(result.missing),
        "decided": result.decided,
        "notes": list(report.notes),
        "judge": report.judge,
    }
