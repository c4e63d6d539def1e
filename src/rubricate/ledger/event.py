"""The ledger event: a public, versioned format (pure: data and ids only)."""

from __future__ import annotations

import json
import marshal
import math
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any, Final, Literal, overload

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_serializer,
    field_validator,
    model_validator,
)

from rubricate.gitnames import REPO_PATTERN, is_full_name
from rubricate.rubric.model import TOLERANCE, ScoreValue

SCHEMA_VERSION: Final = 1
MAX_PR: Final = 2**31 - 1
"""GitHub numbers issues and pull requests with 32-bit integers."""
_SHARED_RUBRICS = 256
"""How many distinct rubric references decoding keeps to share (see `Event._shared_rubric`).
Sets of given field names are shared too (frozen events never change theirs)."""
_rubrics: dict[bytes, RubricRef] = {}
_sets: dict[frozenset[str], set[str]] = {}
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
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class ScaleRef(_Strict):
    """The rubric scale's ends, so the ledger can normalize without the rubric file.

    `open` (recorded only when true) allows scores above `max`.
    """

    min: float
    max: float
    open: bool | None = None

    @model_validator(mode="after")
    def _ordered(self) -> ScaleRef:
        if self.max <= self.min:
            raise ValueError(f"rubric.scale: max ({self.max:g}) must be above min ({self.min:g})")
        return self

    def describe(self) -> str:
        """`1-5`, or `0-100+` for an open scale."""
        return f"{self.min:g}-{self.max:g}{'+' if self.open else ''}"


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
        allow_inf_nan=False,
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
    repo: str = Field(min_length=1, json_schema_extra={"pattern": REPO_PATTERN})
    pr: int = Field(ge=1, json_schema_extra={"maximum": MAX_PR})
    author: str
    actor: str
    actor_role: ActorRole = "none"
    at: datetime
    version: int = Field(default=1, ge=1)
    head_sha: str | None = None
    tree_sha: str | None = None
    change_id: str | None = Field(default=None, max_length=100)
    """What the version is bound to: a digest of the PR's own change (see `change_digest`)."""
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
    sig: str | None = Field(default=None, max_length=200)
    """`hmac-sha256:<hex>` over the canonical line without `sig`, when a ledger key is set."""

    @field_validator("at", "deadline")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("timestamps must carry a timezone (RFC 3339)")
        try:
            return value.astimezone(timezone.utc)
        except OverflowError:
            raise ValueError("the time is out of range in UTC") from None

    @field_validator("rubric", mode="wrap")
    @classmethod
    def _shared_rubric(
        cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo
    ) -> Any:
        """Lines recorded with the same rubric share one reference (frozen): the same object as
        validating it again would give, made once. Most lines of a ledger carry the same few."""
        if info.mode != "json" or not isinstance(value, dict):
            return handler(value)
        key = marshal.dumps(value)  # of JSON values: equal bytes, equal values (in key order)
        shared = _rubrics.get(key)
        if shared is None:
            shared = handler(value)
            if len(_rubrics) >= _SHARED_RUBRICS:
                _rubrics.clear()
            _rubrics[key] = shared
        return shared

    @field_validator("repo")
    @classmethod
    def _full_name(cls, value: str) -> str:
        if not is_full_name(value):
            raise ValueError(f"must look like owner/name, not {value!r}")
        return value

    @field_validator("pr")
    @classmethod
    def _pr_number(cls, value: int) -> int:
        if value > MAX_PR:
            raise ValueError(f"must be at most {MAX_PR} (a GitHub pull request number)")
        return value

    @field_validator("evidence")
    @classmethod
    def _finite_evidence(cls, value: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
        if value is not None and not _finite(value):
            raise ValueError("NaN and Infinity are not valid JSON numbers")
        return value

    @model_validator(mode="after")
    def _rated_has_rating(self) -> Event:
        if self.kind == "rated" and self.rating is None:
            raise ValueError("a 'rated' event needs a rating from 1 to 5")
        return self

    @model_validator(mode="after")
    def _scores_fit_the_rubric(self) -> Event:
        if self.scores and self.rubric is not None:
            problem = score_problem(self.rubric, self.scores)
            if problem is not None:
                raise ValueError(problem)
        got = self.__pydantic_fields_set__  # one set shared by events giving the same fields
        object.__setattr__(self, "__pydantic_fields_set__", _sets.setdefault(frozenset(got), got))
        return self

    @field_serializer("at", "deadline")
    def _rfc3339(self, value: datetime | None) -> str | None:
        return rfc3339(value)

    def to_line(self) -> str:
        """One canonical JSONL line: keys sorted, absent fields left out."""
        return json.dumps(self.model_dump(mode="json", exclude_none=True), sort_keys=True)


def score_problem(rubric: RubricRef, scores: Mapping[str, ScoreValue]) -> str | None:
    """Why these scores do not fit the recorded rubric (None when they do, or it cannot tell).

    Only a rubric recorded with its scale and criteria is checked: each id must be a criterion,
    a null is allowed only on a nullable criterion, and a number must lie on the scale.
    """
    scale, criteria = rubric.scale, rubric.criteria
    if scale is None or criteria is None:
        return None
    low, high = scale.min - TOLERANCE, math.inf if scale.open else scale.max + TOLERANCE
    for criterion, value in scores.items():  # (on the scale: within the scoring tolerance)
        ref = criteria.get(criterion)
        if ref is None:
            return f"scores.{criterion}: not a criterion of rubric {rubric.id} v{rubric.version}"
        if value is None:
            if not ref.nullable:
                return f"scores.{criterion}: null is allowed only on a nullable criterion"
        elif not isinstance(value, bool) and not low <= value <= high:
            return f"scores.{criterion}: {value:g} is outside the rubric's scale {scale.describe()}"
    return None


def _finite(value: object) -> bool:
    """True when no float inside a JSON-like value is NaN or infinite."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return all(_finite(v) for v in value)
    return True


def rfc3339(value: datetime | None) -> str | None:
    """A UTC time as the ledger writes it: `YYYY-MM-DDTHH:MM:SSZ` (None stays None)."""
    if value is None:
        return None
    utc = value.astimezone(timezone.utc)  # isoformat pads the year to four digits, as RFC 3339
    return utc.replace(tzinfo=None, microsecond=0).isoformat() + "Z"


def same_login(login: str, other: str) -> bool:
    """Whether two GitHub logins name one account: GitHub ignores their case."""
    return login.lower() == other.lower()


@overload
def parse_time(value: str) -> datetime: ...
@overload
def parse_time(value: None) -> None: ...
def parse_time(value: str | None) -> datetime | None:
    """An RFC 3339 time (`...Z` or with an offset, as GitHub and `rfc3339` write it) as an aware
    datetime; None stays None. A time without a timezone is a `ValueError`."""
    if value is None:
        return None
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        raise ValueError(f"timestamp without a timezone: {value!r}")
    return parsed


def criterion_source(event: Event, criterion_id: str) -> str:
    """Where a recorded score came from: the evidence entry's source, else the event's."""
    for entry in event.evidence or ():
        if entry.get("type") == "criterion" and entry.get("id") == criterion_id:
            return str(entry.get("source") or event.source or "auto")
    return event.source or "auto"
