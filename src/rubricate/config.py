"""The `.github/rubricate.yml` model and its located validation (pure: parses given text)."""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from rubricate.bot.command_table import Role, default_roles
from rubricate.errors import SourceError
from rubricate.gitnames import ref_problem
from rubricate.ledger.reputation_config import STRICT, ReputationConfig
from rubricate.rubric.located import describe_value, validate_located
from rubricate.suggest import did_you_mean
from rubricate.yamlsource import load_located

CONFIG_PATH = ".github/rubricate.yml"
CONFIG_NAMES = ("rubricate.yml", "rubricate.yaml")


MAX_GRADER_TIMEOUT = 24 * 3600.0
"""A grader may run for at most a day; larger timeouts are mistakes (and overflow timers)."""


DEFAULT_MAX_BYTES = 16 * 1024 * 1024
"""The default size limit of a deliverable file that is parsed and validated."""


class _Deferred(BaseModel):
    """A model of the config file, built on its first use: a command that never reads a config
    (a `ledger append` without `--config`) does not pay for building the models."""

    model_config = ConfigDict(**STRICT, defer_build=True)  # type: ignore[typeddict-item]


class Deliverable(_Deferred):
    """A glob of deliverable files and the JSON Schema they must match."""

    glob: str = Field(description="Glob of deliverable files, relative to the repository root.")
    schema_: str | dict[str, Any] | None = Field(
        default=None,
        alias="schema",
        description="A schema path in the repository (read at the base ref), or an inline schema.",
    )
    required: bool = Field(default=False, description="A missing deliverable is a finding.")
    max_bytes: int = Field(
        default=DEFAULT_MAX_BYTES,
        ge=1,
        le=2**40,
        description="A larger file is reported as not validated (size) and is never parsed.",
    )


class GraderCommand(_Deferred):
    """A command that scores one criterion; runs only where PR code may run."""

    id: str = Field(description="A slug naming the grader.")
    run: str = Field(
        description="The shell command; reads a JSON payload on stdin.",
        json_schema_extra={"pattern": r"\S"},
    )
    criterion: str = Field(description="The criterion id (or unique prefix) it scores.")
    timeout: float = Field(
        default=300,
        gt=0,
        description="Seconds before the grader is stopped (at most a day).",
        json_schema_extra={"maximum": MAX_GRADER_TIMEOUT},
    )

    @field_validator("run")
    @classmethod
    def _a_command(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the command is empty (an empty command would always pass)")
        return value

    @field_validator("timeout")
    @classmethod
    def _at_most_a_day(cls, value: float) -> float:
        if value > MAX_GRADER_TIMEOUT:
            raise ValueError(
                f"at most {MAX_GRADER_TIMEOUT:g} seconds (a day) allowed, got {value:g}"
            )
        return value


class JudgeConfig(_Deferred):
    """Settings of the optional LLM judge."""

    model: str = Field(
        default="gpt-4.1-mini", description="Model name on the OpenAI-compatible server."
    )
    max_input_tokens: int = Field(default=32000, gt=0, description="Input token budget per call.")
    max_output_tokens: int = Field(
        default=4096,
        gt=0,
        description=(
            "Ceiling on the max_tokens of one judge call; the limit sent is 64, plus 100 for"
            " the passages the judge reports as addressed to the reviewer, plus 490 for each"
            " criterion (one longest valid answer: rationale and quotes), up to this."
        ),
    )
    open_scale_ceiling: int = Field(
        default=150,
        gt=0,
        description="Highest score the judge may give on an open scale (axes rubrics).",
    )
    timeout_s: float = Field(
        default=60,
        gt=0,
        description="Time for one judge call, all its attempts included, in seconds.",
    )
    temperature: float = Field(default=0.0, ge=0, le=2, description="Sampling temperature.")
    seed: int | None = Field(default=0, description="Sampling seed, where the server honours one.")


class CommandsConfig(_Deferred):
    """Minimum repository role for each slash command."""

    roles: dict[str, Role] = Field(
        default_factory=default_roles, json_schema_extra=lambda schema: _role_keys(schema)
    )

    @field_validator("roles", mode="before")
    @classmethod
    def _merge_defaults(cls, value: Any) -> Any:
        if isinstance(value, dict):
            unknown = sorted(set(value) - set(default_roles()))
            if unknown:
                hint = did_you_mean(unknown[0], default_roles())
                raise ValueError(f"unknown command {unknown[0]!r}{hint}")
            return {**default_roles(), **value}
        return value


def _role_keys(schema: dict[str, Any]) -> None:
    """The schema of `commands.roles`: one key per command in the table, with its default."""
    schema["propertyNames"] = {"enum": list(default_roles())}
    schema["default"] = default_roles()


_SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE", "AUTH")


class AgentVConfig(_Deferred):
    """How AgentV eval files are read."""

    env: tuple[str, ...] = Field(
        default=(),
        description=(
            "Environment variables an AgentV file may use as `{{ env.NAME }}`; any other name"
            " is a validation error. Names that look like secrets (KEY, TOKEN, SECRET, ...)"
            " are refused: a rendered value reaches the judge's prompt."
        ),
    )

    @field_validator("env")
    @classmethod
    def _names(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        for name in names:
            if not name.isidentifier() or not name.isascii():
                raise ValueError(f"{name!r} is not an environment variable name")
            if any(word in name.upper() for word in _SECRET_WORDS):
                raise ValueError(
                    f"{name!r} looks like a secret; it is never rendered into a rubric"
                )
        return names


class BranchRules(_Deferred):
    """Rules of their own for PRs into the base branches a `branches:` pattern names."""

    rubric: str | None = Field(default=None, description="The rubric for these base branches.")
    deliverables: tuple[Deliverable, ...] | None = None
    scope: tuple[str, ...] | None = None
    graders: tuple[GraderCommand, ...] | None = None
    judge: JudgeConfig | None = None
    commands: CommandsConfig | None = None


class Config(_Deferred):
    """The whole `.github/rubricate.yml`; every key is optional."""

    rubric: str = Field(
        default="agora-v3", description="A built-in rubric name, or a path in the repository."
    )
    deliverables: tuple[Deliverable, ...] = ()
    scope: tuple[str, ...] = Field(default=(), description="Globs of paths a change may touch.")
    graders: tuple[GraderCommand, ...] = ()
    judge: JudgeConfig = Field(default_factory=JudgeConfig)
    agentv: AgentVConfig = Field(default_factory=AgentVConfig)
    commands: CommandsConfig = Field(default_factory=CommandsConfig)
    reputation: ReputationConfig = Field(default_factory=ReputationConfig)
    data_branch: str = Field(
        default="rubricate-data",
        description="The orphan branch holding the ledger; never the default or a base branch.",
    )
    branches: dict[str, BranchRules] = Field(
        default_factory=dict,
        description=(
            "Rules of their own for PRs into some base branches: a branch name or an fnmatch "
            "pattern (`release-*`); an exact name wins, else the first pattern that matches."
        ),
    )

    @field_validator("data_branch")
    @classmethod
    def _branch_name(cls, value: str) -> str:
        problem = ref_problem(value)
        if problem is not None:
            raise ValueError(f"{value!r} is not a valid git branch name: {problem}")
        return value

    def for_base(self, base_ref: str | None) -> Config:
        """The config for a PR into `base_ref`: the `branches:` entry that names it laid over
        the rest (the config itself when none does)."""
        rules = self.branches.get(base_ref) if base_ref is not None else None
        if rules is None and base_ref is not None:
            matches = (r for pattern, r in self.branches.items() if fnmatchcase(base_ref, pattern))
            rules = next(matches, None)
        if rules is None:
            return self
        given = {name: getattr(rules, name) for name in type(rules).model_fields}
        return self.model_copy(update={k: v for k, v in given.items() if v is not None})


def data_branch_problem(
    data_branch: str, default_branch: str | None, base_ref: str | None
) -> str | None:
    """Why the ledger may not be written to `data_branch` here (None when it may)."""
    for role, name in (("the default branch", default_branch), ("the PR's base", base_ref)):
        if name and name == data_branch:
            return (
                f"data_branch {data_branch!r} is {role}: the ledger needs a branch of its own "
                "(rubricate-data by default); nothing was written"
            )
    return None


def load_config(text: str, path: str = CONFIG_PATH) -> Config:
    """Parse and validate config text; raise `SourceError` with located diagnostics."""
    data, locator = load_located(text, path)
    if data is None:
        return Config()
    if not isinstance(data, dict):
        message = f"the config must be a mapping of keys to values, got {describe_value(data)}"
        raise SourceError([locator.diag((), message)])
    return validate_located(Config, data, locator)
