"""The one internal rubric model that every dialect loads into (pure: no I/O)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Dialect = Literal["native", "agentv-assert", "agentv-assertions", "agentv-evaluator", "axes"]
ScaleKind = Literal["points", "checklist", "analytic", "open"]
JudgedFrom = Literal["request", "submission"]
ScoreValue = float | bool | None
"""A criterion score: a number on the rubric's scale, a binary answer, or null."""
Verdict = Literal["pass", "fail", "incomplete"]
TOLERANCE = 1e-9
"""The slack every score comparison allows (ranges, bars, weight sums)."""


class _Frozen(BaseModel):
    """Built on first use: the ledger imports this module's score types, not its models."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Anchor(_Frozen):
    """The text for one score level of a criterion."""

    score: float
    label: str = ""
    what: str = ""
    examples: tuple[str, ...] = ()


class ScoreRange(_Frozen):
    """An analytic score range `low..high` (inclusive, on 0-10) and what it means."""

    low: int
    high: int
    text: str


class Criterion(_Frozen):
    """One thing that is checked, with its weight and its pass bars."""

    id: str
    outcome: str
    weight: float = Field(default=1.0, gt=0)
    required: bool = False
    min_score: float | None = Field(default=None, gt=0, le=1)
    anchors: tuple[Anchor, ...] = ()
    score_ranges: tuple[ScoreRange, ...] = ()
    nullable: bool = False
    judged_from: JudgedFrom = "submission"
    name: str = ""
    operator: str | None = None
    continuous: bool = False
    """A free-form judge score: any number on the scale (0-1 on a checklist), not yes/no."""
    implied: bool = False
    """Required only by AgentV's default for a checklist criterion, not written in the file:
    it fails its grader, as in AgentV, but it does not fail the test by itself."""

    @property
    def title(self) -> str:
        """A human name: the given name, else the id."""
        return self.name or self.id


class Scale(_Frozen):
    """The rubric's one scale; `open` allows scores above `max`."""

    min: float
    max: float
    open: bool = False
    kind: ScaleKind = "points"

    @property
    def binary(self) -> bool:
        """True for a checklist, where every score is 0 or 1."""
        return self.kind == "checklist"


class PassRule(_Frozen):
    """Pass iff weighted_total >= min_total and every score >= min_each (raw scale units)."""

    min_total: float | None = None
    min_each: float | None = None


class Grader(_Frozen):
    """An AgentV rubric grader: its own criteria, scored apart and combined per test."""

    id: str
    type: str
    criteria: tuple[str, ...]
    weight: float = Field(default=1.0, ge=0)
    required: bool = False
    min_score: float | None = Field(default=None, gt=0, le=1)
    negate: bool = False
    analytic: bool = False
    continuous: bool = False
    """A free-form LLM grader: one criterion scored 0-1 by the judge (AgentV `llm-grader.ts`)."""


class Rubric(_Frozen):
    """A loaded rubric: criteria on one scale, with a pass rule, id and version."""

    id: str
    version: str
    dialect: Dialect
    scale: Scale
    pass_rule: PassRule
    criteria: tuple[Criterion, ...]
    source: str = ""
    case: str | None = None
    description: str = ""
    graders: tuple[Grader, ...] = ()

    @property
    def request_criteria(self) -> tuple[str, ...]:
        """Ids of the criteria judged from the request alone, in scoring order."""
        return tuple(c.id for c in self.criteria if c.judged_from == "request")

    def criterion(self, criterion_id: str) -> Criterion:
        """The criterion with this exact id (KeyError when absent)."""
        for criterion in self.criteria:
            if criterion.id == criterion_id:
                return criterion
        raise KeyError(criterion_id)

    @property
    def ids(self) -> tuple[str, ...]:
        """Criterion ids in rubric order."""
        return tuple(c.id for c in self.criteria)

    def known(self, scores: Mapping[str, ScoreValue]) -> dict[str, ScoreValue]:
        """The scores of criteria this rubric has (a ledger may hold ids of an older rubric)."""
        ids = set(self.ids)
        return {cid: value for cid, value in scores.items() if cid in ids}

    @property
    def ref(self) -> dict[str, str]:
        """The `{id, version}` pair recorded with every score."""
        return {"id": self.id, "version": self.version}


def at_least(value: float, bar: float) -> bool:
    """`value >= bar` within `TOLERANCE`."""
    return value >= bar - TOLERANCE


@dataclass(frozen=True)
class CriterionResult:
    """One criterion's score and whether it cleared its own bars (None when unscored)."""

    id: str
    score: ScoreValue
    passed: bool | None


@dataclass(frozen=True)
class ScoreResult:
    """The outcome of scoring a rubric with a set of criterion scores."""

    rubric_id: str
    rubric_version: str
    weighted_total: float | None
    normalized: float | None
    verdict: Verdict
    criteria: tuple[CriterionResult, ...]
    failed: tuple[str, ...] = field(default=())
    missing: tuple[str, ...] = field(default=())
    best_total: float | None = None
    """With scores missing: the highest weighted total still reachable (None when unbounded)."""

    @property
    def decided(self) -> bool:
        """True when no score still to come can change the verdict."""
        return self.verdict != "incomplete"

    @property
    def scored_count(self) -> int:
        """How many criteria have a score (null on a nullable criterion counts as scored)."""
        return len(self.criteria) - len(self.missing)

    def as_dict(self) -> dict[str, object]:
        """The `rubricate rubric score --json` shape."""
        return {
            "rubric": {"id": self.rubric_id, "version": self.rubric_version},
            "weighted_total": self.weighted_total,
            "normalized": self.normalized,
            "verdict": self.verdict,
            "criteria": [{"id": c.id, "score": c.score, "passed": c.passed} for c in self.criteria],
            "failed": list(self.failed),
            "missing": list(self.missing),
            "best_total": self.best_total,
        }


def normalize(scale: Scale, value: float) -> float:
    """`(x - min) / (max - min)`, unclamped (an open scale may exceed 1)."""
    return (value - scale.min) / (scale.max - scale.min)
