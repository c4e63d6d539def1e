"""The ledger event: a public, versioned format (pure: data and ids only)."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone
from typing import Any, Final, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    field_serializer,
    field_validator,
    model_validator,
)

from rubricate.rubric.model import Rubric

SCHEMA_VERSION: Final = 1
EventKind = Literal[
    "first_submission",
    "review_scored",
    "revision_requested",
    "approved",
    "final_approval",
    "abandoned",
    "rated",
    "disputed",
]
ActorRole = Literal["admin", "maintain", "write", "triage", "read", "none", "bot"]
Source = Literal["auto", "judge", "reviewer"]
Gate = Literal["passed", "overridden", "bypassed"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ScaleRef(_Strict):
    """The rubric scale's ends, so the ledger can normalize without the rubric file."""

    min: float
    max: float


class CriterionRef(_Strict):
    """What the fold needs of a criterion: its weight and whether it may be null."""

    weight: float = Field(gt=0)
    nullable: bool = False


class RubricRef(_Strict):
    """The rubric a score was recorded with; scale and criteria make the ledger self-contained."""

    id: str
    version: str
    scale: ScaleRef | None = None
    criteria: dict[str, CriterionRef] | None = None


class Override(_Strict):
    """An override of a failing approval, with its reason."""

    reason: str = Field(min_length=20)


class JudgeInfo(_Strict):
    """What the LLM judge used to produce a score."""

    model: str
    prompt_version: str
    tokens_in: int = 0
    tokens_out: int = 0
    latency_ms: int | None = None
    cached: bool = False


class Event(_Strict):
    """One append-only ledger entry."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        json_schema_extra={
            "allOf": [
                {
                    "if": {"properties": {"kind": {"const": "rated"}}},
                    "then": {"required": ["rating"]},
                }
            ]
        },
    )

    schema_version: Literal[1] = SCHEMA_VERSION
    id: str = Field(min_length=1)
    kind: EventKind
    repo: str = Field(min_length=1)
    pr: int = Field(ge=1)
    author: str
    actor: str
    actor_role: ActorRole = "none"
    at: datetime
    version: int = Field(default=1, ge=1)
    head_sha: str | None = None
    tree_sha: str | None = None
    rubric: RubricRef | None = None
    scores: dict[str, float | bool | None] | None = None
    weighted_total: float | None = None
    normalized: float | None = None
    verdict: Literal["pass", "fail", "incomplete"] | None = None
    source: Source | None = None
    override: Override | None = None
    feedback: str | None = None
    rating: int | None = Field(default=None, ge=1, le=5)
    deadline: datetime | None = None
    gate: Gate | None = None
    evidence: list[dict[str, Any]] | None = None
    judge: JudgeInfo | None = None
    delivery: str | None = None

    @field_validator("at", "deadline")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("timestamps must carry a timezone (RFC 3339)")
        return value.astimezone(timezone.utc)

    @model_validator(mode="after")
    def _rated_has_rating(self) -> Event:
        if self.kind == "rated" and self.rating is None:
            raise ValueError("a 'rated' event needs a rating from 1 to 5")
        return self

    @field_serializer("at", "deadline")
    def _rfc3339(self, value: datetime | None) -> str | None:
        return rfc3339(value)

    def to_line(self) -> str:
        """One canonical JSONL line: keys sorted, absent fields left out."""
        return json.dumps(self.model_dump(mode="json", exclude_none=True), sort_keys=True)


def rfc3339(value: datetime | None) -> str | None:
    """A UTC time as the ledger writes it: `YYYY-MM-DDTHH:MM:SSZ` (None stays None)."""
    return None if value is None else value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(value: str | None) -> datetime | None:
    """The inverse of `rfc3339`."""
    return None if value is None else datetime.fromisoformat(value.replace("Z", "+00:00"))


def natural_key(kind: str, repo: str, pr: int, version: int, delivery: str) -> str:
    """The event id: hex sha256 of (kind, repo, pr, version, delivery)."""
    payload = json.dumps([kind, repo, pr, version, delivery], separators=(",", ":"))
    return hashlib.sha256(payload.encode()).hexdigest()


def rubric_ref(rubric: Rubric) -> RubricRef:
    """The full `{id, version, scale, criteria}` reference recorded with scores."""
    return RubricRef(
        id=rubric.id,
        version=rubric.version,
        scale=ScaleRef(min=rubric.scale.min, max=rubric.scale.max),
        criteria={
            c.id: CriterionRef(weight=c.weight, nullable=c.nullable) for c in rubric.criteria
        },
    )
