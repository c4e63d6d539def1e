"""The `reputation:` section of the config: component weights, rater trust, SLA (pure: values).

It lives with the ledger, which is all that reads it, so that the ledger depends on no other
part of the config; `rubricate.config` includes it in the whole file's model. Each setting (its
default, bounds and description) is written once, here, as a field of a frozen dataclass: every
ledger command reads the config a branch records without loading pydantic. pydantic validates a
section only where the config file is read (its located messages and JSON schema), and for a
recorded value that is not already canonical (a number given as text, say): it builds the
section's model from these fields (see `ConfigSection.__get_pydantic_core_schema__`).
"""

from __future__ import annotations

import dataclasses
import math
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

if TYPE_CHECKING:
    from pydantic import BaseModel, GetCoreSchemaHandler
    from pydantic_core import CoreSchema

S = TypeVar("S", bound="ConfigSection")
BUILT_MODELS: dict[type[ConfigSection], type[BaseModel]] = {}
"""Each section's pydantic model, once built (a canonical read builds none)."""
_HINTS: dict[type[ConfigSection], dict[str, tuple[Any, bool]]] = {}
STRICT: dict[str, Any] = {
    "extra": "forbid",
    "frozen": True,
    "populate_by_name": True,
    "allow_inf_nan": False,
}
"""The pydantic settings of every config model: unknown keys are errors, values are frozen and
finite."""
_CANONICAL: dict[Any, tuple[type, ...]] = {float: (float, int), int: (int,)}
"""A recorded number read without pydantic: a float setting takes an int or a float, an int
setting an int (never a bool); anything else goes to the model, which coerces or refuses it."""


def setting(
    default: float | None,
    *,
    ge: float | None = None,
    gt: float | None = None,
    description: str | None = None,
) -> Any:
    """A config setting: its default, bounds and description."""
    return field(default=default, metadata={"ge": ge, "gt": gt, "description": description})


class ConfigSection:
    """A frozen table of settings, checked when made (as a pydantic model is: a float setting
    given an int holds a float; a bad value raises pydantic's `ValidationError`), read from JSON
    values (`model_validate`) and written back (`model_dump`); unknown keys are errors."""

    finite_sum: ClassVar[bool] = False
    """Weights are divided by their sum: it must be a finite number."""

    def __post_init__(self) -> None:
        values = self._checked(self._given())
        if values is None:  # not canonical: the model coerces it, or says what is wrong
            values = _values(
                type(self), section_model(type(self)).model_validate(self.model_dump())
            )
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @classmethod
    def model_validate(cls: type[S], data: Any) -> S:
        """The section of a JSON value: read directly when canonical, else through the model
        (which coerces lax values such as numeric text, or raises its `ValidationError`)."""
        found = cls._canonical(data)
        if found is not None:
            return found
        return cls(**_values(cls, section_model(cls).model_validate(data)))

    def model_dump(self, mode: str = "python") -> dict[str, Any]:
        """The settings as a dict (nested sections as dicts), in field order."""
        return {
            name: value.model_dump(mode) if isinstance(value, ConfigSection) else value
            for name, value in self._given().items()
        }

    def _given(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _hints(type(self))}

    @classmethod
    def _checked(cls, given: Mapping[str, Any]) -> dict[str, Any] | None:
        """The settings with floats made floats, when each is valid and canonical (a section
        already made), else None."""
        values: dict[str, Any] = {}
        for name, value in given.items():
            kind, optional = _hints(cls)[name]
            if value is None and optional:
                values[name] = None
            elif _is_section(kind) and isinstance(value, kind):
                values[name] = value
            elif (number := _number(kind, value, _bounds(cls, name))) is not None:
                values[name] = number
            else:
                return None
        if cls.finite_sum and not math.isfinite(sum(values.values())):
            return None
        return values

    @classmethod
    def _canonical(cls: type[S], data: Any) -> S | None:
        """The section when `data` is valid and already canonical, else None."""
        hints = _hints(cls)
        if not isinstance(data, dict) or not set(data) <= set(hints):
            return None
        given = {
            name: hints[name][0]._canonical(value) if _is_section(hints[name][0]) else value
            for name, value in data.items()
        }
        values = cls._checked(given)
        return None if values is None else cls(**values)

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: type[Any], handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        """Validated as the section's model (its messages and JSON schema), then made this
        dataclass; written back with `model_dump`."""
        from pydantic_core import core_schema  # only a config file's model needs pydantic

        return core_schema.no_info_after_validator_function(
            lambda model: cls(**_values(cls, model)),
            handler.generate_schema(section_model(cls)),
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda value: value.model_dump(mode="json")
            ),
        )


def _is_section(kind: Any) -> bool:
    return isinstance(kind, type) and issubclass(kind, ConfigSection)


def _bounds(section: ConfigSection | type[ConfigSection], name: str) -> Mapping[str, Any]:
    return {f.name: f.metadata for f in dataclasses.fields(section)}[name]  # type: ignore[arg-type]


def _values(cls: type[ConfigSection], model: BaseModel) -> dict[str, Any]:
    """A validated model's settings, nested sections made dataclasses."""
    values = {}
    for name, (kind, _) in _hints(cls).items():
        value = getattr(model, name)
        values[name] = kind(**_values(kind, value)) if _is_section(kind) else value
    return values


def _number(kind: Any, value: Any, bounds: Mapping[str, Any]) -> float | None:
    """A canonical number of a setting's type, finite and within its bounds, else None."""
    if type(value) not in _CANONICAL.get(kind, ()):
        return None
    try:
        number = kind(value)
    except OverflowError:
        return None
    low, above = bounds.get("ge"), bounds.get("gt")
    if (kind is float and not math.isfinite(number)) or (low is not None and number < low):
        return None
    return None if above is not None and number <= above else number


def _hints(cls: type[ConfigSection]) -> dict[str, tuple[Any, bool]]:
    """Each field's type (without `| None`) and whether None is allowed."""
    if cls in _HINTS:
        return _HINTS[cls]
    found = _HINTS[cls] = {}
    for name, hint in typing.get_type_hints(cls).items():
        if name in {f.name for f in dataclasses.fields(cls)}:  # type: ignore[arg-type]
            parts = [a for a in typing.get_args(hint) if a is not type(None)]
            found[name] = (parts[0] if parts else hint, bool(parts))
    return found


def section_model(cls: type[ConfigSection]) -> type[BaseModel]:
    """The pydantic model of a section, built once from its fields (the config file's messages
    and JSON schema come from it)."""
    if cls not in BUILT_MODELS:
        BUILT_MODELS[cls] = _built_model(cls)
    return BUILT_MODELS[cls]


def _built_model(cls: type[ConfigSection]) -> type[BaseModel]:
    # pydantic only for a config file's model: reading a recorded config never loads it
    from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

    class Strict(BaseModel):
        model_config = ConfigDict(**STRICT)  # type: ignore[typeddict-item]

    class Weights(Strict):
        @model_validator(mode="after")
        def _finite_sum(self) -> Weights:
            if not math.isfinite(sum(float(v) for v in self.model_dump().values())):
                raise ValueError("too large: their sum is not a finite number")
            return self

    fields: dict[str, Any] = {}
    for item in dataclasses.fields(cls):  # type: ignore[arg-type]
        kind, optional = _hints(cls)[item.name]
        section = isinstance(kind, type) and issubclass(kind, ConfigSection)
        annotation = section_model(kind) if section else kind
        default: dict[str, Any] = (
            {"default_factory": section_model(kind) if section else item.default_factory}
            if item.default is dataclasses.MISSING
            else {"default": item.default}
        )
        limits = {k: v for k, v in item.metadata.items() if v is not None}
        fields[item.name] = (
            annotation | None if optional else annotation,
            Field(**default, **limits),
        )
    base = Weights if cls.finite_sum else Strict
    return create_model(cls.__name__, __base__=base, __doc__=cls.__doc__, **fields)


@dataclass(frozen=True)
class ReputationWeights(ConfigSection):
    """Agora V3 reputation weights."""

    finite_sum: ClassVar[bool] = True
    completion_rate: float = setting(0.27, ge=0)
    timeliness_score: float = setting(0.20, ge=0)
    dispute_penalty: float = setting(0.20, ge=0)
    rating_score: float = setting(0.13, ge=0)
    rubric_quality: float = setting(0.20, ge=0)


@dataclass(frozen=True)
class TrustWeights(ConfigSection):
    """Weight of a rater's `/rate` by their repository role."""

    finite_sum: ClassVar[bool] = True
    admin: float = setting(1.0, ge=0)
    maintain: float = setting(1.0, ge=0)
    write: float = setting(0.75, ge=0)
    triage: float = setting(0.5, ge=0)
    default: float = setting(0.25, ge=0)

    def for_role(self, role: str) -> float:
        """The weight for a role; roles without their own weight get `default`."""
        return float(getattr(self, role, self.default)) if role in _TRUST_ROLES else self.default


_TRUST_ROLES = ("admin", "maintain", "write", "triage")


@dataclass(frozen=True)
class ReputationConfig(ConfigSection):
    """How reputation is computed."""

    weights: ReputationWeights = field(default_factory=ReputationWeights)
    trust: TrustWeights = field(default_factory=TrustWeights)
    sla_hours: float | None = setting(None, gt=0, description="Deadline after PR creation.")
    prior_jobs: float = setting(
        5.0,
        ge=0,
        description="Pseudo-jobs at the repository's mean that `ranked` adds to each component "
        "(0: ranked equals reputation).",
    )
    provisional_below: int = setting(
        5, ge=0, description="Authors with fewer completed jobs are marked provisional."
    )
