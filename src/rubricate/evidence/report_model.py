"""The result of scoring a change: checks, findings and per-criterion scores (pure: data only)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from rubricate.rubric.model import Rubric, ScoreValue

if TYPE_CHECKING:
    from rubricate.rubric.model import ScoreResult

CheckStatus = Literal["pass", "fail", "warn", "skip", "error"]
Severity = Literal["error", "warning", "info"]
ScoreSource = Literal["auto", "judge", "reviewer"]


@dataclass(frozen=True)
class Finding:
    """One observation of a check, located where possible."""

    check: str
    message: str
    path: str | None = None
    line: int | None = None
    severity: Severity = "warning"

    def as_dict(self) -> dict[str, Any]:
        """The `{path, line, message}` JSON shape (plus severity)."""
        return {
            "path": self.path,
            "line": self.line,
            "message": self.message,
            "severity": self.severity,
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
) -> CheckResult:
    """A check result whose status follows from its findings and whether it has a value."""
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


def has_defects(result: CheckResult) -> bool:
    """True when a check reported any error or warning (it then never earns the top score)."""
    return any(f.severity in ("error", "warning") for f in result.findings)


def short_list(items: list[str] | tuple[str, ...], limit: int = 3) -> str:
    """`a, b, c (+4 more)`: the first few items of a long list."""
    shown = ", ".join(items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")
