"""The shapes of rubric files in each dialect: validation and JSON Schema (pure: no I/O).

These models check keys and value types; `schemas.py` generates `schemas/rubric.schema.json`
from them. Meaning (weights summing to 1, score-range coverage, ids) is checked afterwards.
Criterion objects and native/axes top-level keys are strict; AgentV files may carry other keys.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag

Number = Annotated[float, Field(allow_inf_nan=False)]
Weight = Annotated[
    float, Field(gt=0, allow_inf_nan=False, description="Relative importance; a positive number.")
]
MinScore = Annotated[
    float,
    Field(
        gt=0,
        le=1,
        allow_inf_nan=False,
        description="Normalized bar in (0, 1] this criterion must reach.",
    ),
]
Version = Annotated[
    str | int | float, Field(description="The rubric version, recorded with scores.")
]
TAG_TEXT = "<text>"
TAG_MAPPING = "<mapping>"
TAG_LIST = "<list>"
RANGE_KEY_PATTERN = r"^\s*(10|[0-9])\s*(-\s*(10|[0-9])\s*)?$"


def shape_tag(value: Any) -> str | None:
    """The union tag for a value's YAML shape: text, mapping or list (None for other shapes)."""
    if isinstance(value, str):
        return TAG_TEXT
    if isinstance(value, dict):
        return TAG_MAPPING
    if isinstance(value, list):
        return TAG_LIST
    return None


class Strict(BaseModel):
    """Built on first use: the ledger and config paths import this module's tags, not its
    models."""

    model_config = ConfigDict(
        extra="forbid", strict=True, frozen=True, populate_by_name=True, defer_build=True
    )


class AnchorSpec(Strict):
    """The text of one score level."""

    score: Number
    label: str = ""
    what: str = Field(default="", description="What a submission at this level looks like.")
    examples: list[str] = Field(default_factory=list)


class RangeSpec(Strict):
    """One analytic score range in list form: `{score_range: [a, b], outcome}`."""

    score_range: Annotated[list[int], Field(min_length=2, max_length=2)]
    outcome: str


AnchorMap = Annotated[
    dict[Any, str],
    Field(json_schema_extra={"propertyNames": {"pattern": r"^-?[0-9]+(\.[0-9]+)?$"}}),
]
Anchors = Annotated[
    Annotated[AnchorMap, Tag(TAG_MAPPING)] | Annotated[list[AnchorSpec], Tag(TAG_LIST)],
    Discriminator(
        shape_tag,
        custom_error_type="anchors_shape",
        custom_error_message="Input should be a mapping of score to text, or a list of anchors",
    ),
    Field(
        description="Score level texts: `{5: text}`, or a list of `{score, label, what, examples}`"
    ),
]
RangeMap = Annotated[
    dict[Any, str], Field(json_schema_extra={"propertyNames": {"pattern": RANGE_KEY_PATTERN}})
]
ScoreRanges = Annotated[
    Annotated[RangeMap, Tag(TAG_MAPPING)] | Annotated[list[RangeSpec], Tag(TAG_LIST)],
    Discriminator(
        shape_tag,
        custom_error_type="score_ranges_shape",
        custom_error_message="Input should be a mapping of scores to text, or a list of ranges",
    ),
    Field(
        description="Analytic 0-10 levels: `{0: text, 5: text}` lower bounds, or `{'0-4': text}`."
    ),
]


class _CriterionBase(Strict):
    name: str = Field(default="", description="A human name; defaults to the id.")
    weight: Weight = 1.0
    required: bool = Field(default=False, description="Failing this criterion fails the rubric.")
    min_score: MinScore | None = None
    nullable: bool = Field(default=False, description="May be scored null (not applicable).")
    judged_from: Literal["request", "submission"] = Field(
        default="submission", description="`request` criteria are judged from the request alone."
    )


class NativeCriterion(_CriterionBase):
    """A criterion of a native (Agora-style) rubric."""

    id: str
    outcome: str | None = Field(default=None, description="What is checked.")
    description: str | None = Field(default=None, description="An alias of `outcome`.")
    anchors: Anchors | None = None


class AgentVCriterion(_CriterionBase):
    """An AgentV criterion object (`assert`, `assertions` or evaluator `rubrics`)."""

    id: str | None = None
    outcome: str | None = Field(default=None, description="What is checked.")
    criteria: str | None = Field(default=None, description="An alias of `outcome` (AgentV 4+).")
    expected_outcome: str | None = Field(default=None, description="An alias of `outcome`.")
    description: str | None = Field(default=None, description="An alias of `outcome` (AgentV 2).")
    score_ranges: ScoreRanges | None = None
    required_min_score: Annotated[int, Field(ge=0, le=10)] | None = Field(
        default=None, description="AgentV 2-4: the lowest passing 0-10 score; now `min_score`."
    )
    operator: Literal["correctness", "contradiction"] | None = Field(
        default=None, description="How the judge reads the outcome (AgentV 4+)."
    )


class AxisSpec(_CriterionBase):
    """One axis of an axes rubric; its id is its key."""

    description: str | None = Field(default=None, description="What the axis measures.")
    outcome: str | None = Field(default=None, description="An alias of `description`.")
    anchors: Anchors | None = None


def shapes(what: str) -> Discriminator:
    """Tell a plain string from a mapping, with one clear error for anything else."""
    return Discriminator(
        shape_tag,
        custom_error_type=f"{what}_shape",
        custom_error_message=f"Input should be a string or a mapping ({what})",
    )


AgentVItem = Annotated[
    Annotated[str, Tag(TAG_TEXT)] | Annotated[AgentVCriterion, Tag(TAG_MAPPING)],
    shapes("criterion"),
]


class ScaleSpec(Strict):
    """A native rubric's score scale."""

    min: Number
    max: Number


class PassSpec(Strict):
    """A pass rule in raw scale units; a missing bar is not checked."""

    min_total: Number | None = Field(default=None, description="Lowest passing weighted total.")
    min_each: Number | None = Field(
        default=None, description="Lowest passing score of any criterion."
    )


class RubricHeader(BaseModel):
    """Keys every rubric file may have."""

    id: str | None = Field(
        default=None, description="The rubric id; defaults to `name`, then the file name."
    )
    name: str | None = None
    version: Version | None = None
    description: str | None = None


class NativeFile(Strict, RubricHeader):
    """A native rubric: weighted criteria (weights sum to 1.00) on one scale."""

    model_config = ConfigDict(title="native rubric")
    scale: ScaleSpec | None = Field(default=None, description="Defaults to Agora's 1-5.")
    pass_: PassSpec | None = Field(default=None, alias="pass", description="Defaults to Agora's.")
    criteria: Annotated[list[NativeCriterion], Field(min_length=1)]


class AxesFile(Strict, RubricHeader):
    """An axes rubric: an open 0..100+ scale with anchored, possibly nullable axes."""

    model_config = ConfigDict(title="axes rubric")
    pass_: PassSpec | None = Field(
        default=None, alias="pass", description="Defaults to min_total 50."
    )
    axes: Annotated[dict[str, AxisSpec], Field(min_length=1)]
