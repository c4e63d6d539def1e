"""The ledger event: a public, versioned format (pure: data and ids only).

Events, and the rubric, override and judge records inside them, are frozen dataclasses
(`ledger.records`): each field's type, default, bounds and rule are written once, here. A line
in canonical form is read without pydantic; any other input goes to the model built from these
same fields (`ledger.event_model`), which coerces it or words its errors. See DESIGN.md §3.
"""

from __future__ import annotations

import json
import marshal
import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, ClassVar, Final, Literal, overload

from rubricate.errors import Undecided
from rubricate.gitnames import REPO_PATTERN, is_full_name
from rubricate.ledger.records import Record, Rule, loads, made, read_values, rule
from rubricate.ledger.times import read_time

SCHEMA_VERSION: Final = 1
MAX_PR: Final = 2**31 - 1
"""GitHub numbers issues and pull requests with 32-bit integers."""
TOLERANCE: Final = 1e-9
"""The slack a recorded score's range allows: the rubric's scoring tolerance
(`rubric.model.TOLERANCE`, which a test holds equal), so that reading events loads no rubric."""
ScoreValue = float | bool | None
"""A recorded criterion score: a number on the rubric's scale, a binary answer, or null."""
_SHARED_RUBRICS = 256
NOT_AS_WRITTEN = "not as rubricate writes it"
"""What `Event.written` says of values it refuses."""
"""How many distinct rubric references reading lines keeps to share (see `_shared_rubric`)."""
_rubrics: dict[tuple[bool, bytes], RubricRef] = {}
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


def rfc3339(value: datetime | None) -> str | None:
    """A UTC time as the ledger writes it: `YYYY-MM-DDTHH:MM:SSZ` (None stays None)."""
    if value is None:
        return None
    utc = value.astimezone(timezone.utc)  # isoformat pads the year to four digits, as RFC 3339
    return utc.replace(tzinfo=None, microsecond=0).isoformat() + "Z"


def _ordered(scale: ScaleRef) -> str | None:
    if scale.max <= scale.min:
        return f"rubric.scale: max ({scale.max:g}) must be above min ({scale.min:g})"
    return None


@dataclass(frozen=True, kw_only=True)
class ScaleRef(Record):
    """The rubric scale's ends, so the ledger can normalize without the rubric file.

    `open` (recorded only when true) allows scores above `max`.
    """

    rules: ClassVar[tuple[Rule, ...]] = (_ordered,)
    min: float
    max: float
    open: bool | None = None

    def describe(self) -> str:
        """`1-5`, or `0-100+` for an open scale."""
        return f"{self.min:g}-{self.max:g}{'+' if self.open else ''}"


@dataclass(frozen=True, kw_only=True)
class CriterionRef(Record):
    """What the fold needs of a criterion: its weight and whether it may be null."""

    weight: float = rule(gt=0)
    nullable: bool = False


@dataclass(frozen=True, kw_only=True)
class RubricRef(Record):
    """The rubric a score was recorded with; scale and criteria make the ledger self-contained."""

    id: str
    version: str
    scale: ScaleRef | None = None
    criteria: dict[str, CriterionRef] | None = None


@dataclass(frozen=True, kw_only=True)
class Override(Record):
    """An override of a failing approval, with its reason."""

    reason: str = rule(min_length=20)


@dataclass(frozen=True, kw_only=True)
class JudgeInfo(Record):
    """What the LLM judge used to produce a score."""

    model: str
    prompt_version: str
    tokens_in: int = 0
    tokens_out: int = 0
    latency_ms: int | None = None
    cached: bool = False


def _full_name(repo: str) -> str | None:
    return None if is_full_name(repo) else f"must look like owner/name, not {repo!r}"


def _pr_number(pr: int) -> str | None:
    return f"must be at most {MAX_PR} (a GitHub pull request number)" if pr > MAX_PR else None


def _finite_evidence(evidence: list[dict[str, Any]]) -> str | None:
    return None if _finite(evidence) else "NaN and Infinity are not valid JSON numbers"


def _rated_has_rating(event: Event) -> str | None:
    if event.kind == "rated" and event.rating is None:
        return "a 'rated' event needs a rating from 1 to 5"
    return None


def _scores_fit_the_rubric(event: Event) -> str | None:
    if event.scores and event.rubric is not None:
        return score_problem(event.rubric, event.scores)
    return None


@dataclass(frozen=True, kw_only=True)
class Event(Record):
    """One append-only ledger entry."""

    rules: ClassVar[tuple[Rule, ...]] = (_rated_has_rating, _scores_fit_the_rubric)
    schema_extra: ClassVar[Mapping[str, Any] | None] = {
        "allOf": [
            {
                "if": {"properties": {"kind": {"const": "rated"}}},
                "then": {"required": ["rating"]},
            }
        ]
    }
    schema_version: Literal[1] = SCHEMA_VERSION
    id: str = rule(min_length=1)
    kind: EventKind
    repo: str = rule(min_length=1, check=_full_name, schema={"pattern": REPO_PATTERN})
    pr: int = rule(ge=1, check=_pr_number, schema={"maximum": MAX_PR})
    author: str
    actor: str
    actor_role: ActorRole = "none"
    at: datetime = rule(dump=rfc3339)  # noqa: RUF009 (a dataclass field, as `field` gives)
    version: int = rule(1, ge=1)
    head_sha: str | None = None
    tree_sha: str | None = None
    change_id: str | None = rule(None, max_length=100)
    """What the version is bound to: a digest of the PR's own change (see `change_digest`)."""
    rubric: RubricRef | None = None
    scores: dict[str, ScoreValue] | None = None
    weighted_total: float | None = None
    normalized: float | None = None
    verdict: Literal["pass", "fail", "incomplete"] | None = None
    source: Source | None = None
    override: Override | None = None
    feedback: str | None = None
    rating: int | None = rule(None, ge=1, le=5)
    deadline: datetime | None = rule(None, dump=rfc3339)  # noqa: RUF009
    gate: Gate | None = None
    evidence: list[dict[str, Any]] | None = rule(None, check=_finite_evidence)  # noqa: RUF009
    judge: JudgeInfo | None = None
    delivery: str | None = None
    sig: str | None = rule(None, max_length=200)
    """`hmac-sha256:<hex>` over the canonical line without `sig`, when a ledger key is set."""

    @classmethod
    def model_validate_json(cls, text: str | bytes) -> Event:
        """The event of one JSON line: read directly when canonical (lines recorded with the
        same rubric share one frozen reference), else by the model."""
        try:
            values = loads(text)
            if type(values) is not dict:
                raise Undecided
            rubric = values.get("rubric")
            if type(rubric) is dict:
                values["rubric"] = _shared_rubric(rubric)
            return made(cls, read_values(cls, values))
        except (Undecided, ValueError, RecursionError):
            return super().model_validate_json(text)

    @classmethod
    def written(cls, values: dict[str, Any]) -> Event:
        """The event whose canonical line is `json.dumps(values, sort_keys=True)`, for a writer
        that makes its lines itself: `values` must be valid and exactly the JSON values
        `model_dump(mode="json", exclude_none=True)` gives back (`read_values`' `exact` rule),
        `ValueError` otherwise. `values` is left as it is."""
        if type(values) is not dict:
            raise ValueError(f"not the JSON object of an event's canonical line ({NOT_AS_WRITTEN})")
        try:
            rubric = values.get("rubric")
            if type(rubric) is dict:
                values = {**values, "rubric": _shared_rubric(rubric, exact=True)}
            return made(cls, read_values(cls, values, exact=True))
        except Undecided:
            raise ValueError(
                f"not the JSON values of an event's canonical line ({NOT_AS_WRITTEN})"
            ) from None

    def to_line(self) -> str:
        """One canonical JSONL line: keys sorted, absent fields left out."""
        return json.dumps(self.model_dump(mode="json", exclude_none=True), sort_keys=True)


def _shared_rubric(value: dict[str, Any], exact: bool = False) -> RubricRef:
    """Lines recorded with the same rubric share one reference (frozen): the same object as
    reading it again would give, made once. Most lines of a ledger carry the same few. `exact`:
    read by `read_values`' `exact` rule (a reference shared only with values read so)."""
    key = (exact, marshal.dumps(value))  # of JSON values: equal bytes, equal values (in order)
    shared = _rubrics.get(key)
    if shared is None:
        shared = made(RubricRef, read_values(RubricRef, value, exact))  # (or Undecided)
        if len(_rubrics) >= _SHARED_RUBRICS:
            _rubrics.clear()
        _rubrics[key] = shared
    return shared


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
    return None if value is None else read_time(value)


def criterion_source(event: Event, criterion_id: str) -> str:
    """Where a recorded score came from: the evidence entry's source, else the event's."""
    for entry in event.evidence or ():
        if entry.get("type") == "criterion" and entry.get("id") == criterion_id:
            return str(entry.get("source") or event.source or "auto")
    return event.source or "auto"
