"""The result of scoring a change: checks, findings and per-criterion scores (pure: data only)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from rubricate.rubric.model import Rubric, ScoreValue
from rubricate.rubric.scoring import ScoreResult

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
        return {"path": self.path, "line": self.line, "message": self.message, "severity": self.severity}


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
