"""The `reputation:` section of the config: component weights, rater trust, SLA (pure: models).

It lives with the ledger, which is all that reads it, so that the ledger depends on no other
part of the config; `rubricate.config` includes it in the whole file's model.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Strict(BaseModel):
    """The base of every config model: unknown keys are errors, values are frozen and finite."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, populate_by_name=True, allow_inf_nan=False
    )


class Weights(Strict):
    """A table of weights that are divided by their sum: it must be a finite number."""

    @model_validator(mode="after")
    def _finite_sum(self) -> Weights:
        if not math.isfinite(sum(float(v) for v in self.model_dump().values())):
            raise ValueError("too large: their sum is not a finite number")
        return self


class ReputationWeights(Weights):
    """Agora V3 reputation weights."""

    completion_rate: float = Field(default=0.27, ge=0)
    timeliness_score: float = Field(default=0.20, ge=0)
    dispute_penalty: float = Field(default=0.20, ge=0)
    rating_score: float = Field(default=0.13, ge=0)
    rubric_quality: float = Field(default=0.20, ge=0)


class TrustWeights(Weights):
    """Weight of a rater's `/rate` by their repository role."""

    admin: float = Field(default=1.0, ge=0)
    maintain: float = Field(default=1.0, ge=0)
    write: float = Field(default=0.75, ge=0)
    triage: float = Field(default=0.5, ge=0)
    default: float = Field(default=0.25, ge=0)

    def for_role(self, role: str) -> float:
        """The weight for a role; roles without their own weight get `default`."""
        return float(getattr(self, role, self.default)) if role in _TRUST_ROLES else self.default


_TRUST_ROLES = ("admin", "maintain", "write", "triage")


class ReputationConfig(Strict):
    """How reputation is computed."""

    weights: ReputationWeights = Field(default_factory=ReputationWeights)
    trust: TrustWeights = Field(default_factory=TrustWeights)
    sla_hours: float | None = Field(default=None, gt=0, description="Deadline after PR creation.")
    prior_jobs: float = Field(
        default=5.0,
        ge=0,
        allow_inf_nan=False,
        description="Pseudo-jobs at the repository's mean that `ranked` adds to each component "
        "(0: ranked equals reputation).",
    )
    provisional_below: int = Field(
        default=5, ge=0, description="Authors with fewer completed jobs are marked provisional."
    )
