"""Effects: what a pure handler asks the shell to do (pure: data only).

Handlers return a list of effects; one executor applies them, the ledger first, then the views.
`--dry-run` prints them as JSON lines through `effect_to_dict`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

from rubricate.ledger.event import Event

ReactionKind = Literal["eyes", "+1", "confused"]
StatusState = Literal["pending", "success", "failure", "error"]
CheckConclusion = Literal["success", "failure", "neutral", "action_required", "skipped"]


@dataclass(frozen=True)
class AppendEvents:
    """Append events to the ledger (ids already present are skipped)."""

    events: tuple[Event, ...]


@dataclass(frozen=True)
class UpsertComment:
    """Create or edit the one sticky comment on a PR, found by marker and our author."""

    pr: int
    body: str
    marker: str
    comment_id: int | None = None


@dataclass(frozen=True)
class PostComment:
    """Post a new, short comment (a reply to a refused or mistaken command)."""

    pr: int
    body: str


@dataclass(frozen=True)
class Annotation:
    """A check-run annotation on a file and line."""

    path: str
    line: int
    message: str
    level: Literal["notice", "warning", "failure"] = "warning"
    title: str = ""


@dataclass(frozen=True)
class SetCheckRun:
    """Create or update the check run named `rubricate` on a head SHA."""

    head_sha: str
    title: str
    summary: str
    conclusion: CheckConclusion
    text: str = ""
    annotations: tuple[Annotation, ...] = ()
    name: str = "rubricate"


@dataclass(frozen=True)
class SetStatus:
    """Set the commit status that gates the merge."""

    sha: str
    state: StatusState
    description: str
    context: str = "rubricate/approval"


@dataclass(frozen=True)
class React:
    """Add a reaction to a comment or a review."""

    comment_id: int
    content: ReactionKind
    target: Literal["issue_comment", "review"] = "issue_comment"
    pr: int | None = None


@dataclass(frozen=True)
class SetOutputs:
    """Set the job outputs and the step summary."""

    outputs: dict[str, str]
    summary: str = ""


@dataclass(frozen=True)
class Annotate:
    """A workflow-command annotation in the Actions log."""

    message: str
    level: Literal["notice", "warning", "error"] = "warning"
    path: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class MarkAnswered:
    """Remember in the view state that a comment or review (`comment:<id>`) was answered
    without any ledger event, so a re-run never answers it again (applied only when every
    effect before it succeeded)."""

    prefix: str


@dataclass(frozen=True)
class Log:
    """One line for the run log."""

    message: str
    extra: dict[str, Any] = field(default_factory=dict)


Effect = (
    AppendEvents
    | UpsertComment
    | PostComment
    | SetCheckRun
    | SetStatus
    | React
    | SetOutputs
    | Annotate
    | MarkAnswered
    | Log
)


def effect_to_dict(effect: Effect) -> dict[str, Any]:
    """A JSON-ready dict with the effect's type name first."""
    data: dict[str, Any] = {"effect": type(effect).__name__}
    for item in dataclasses.fields(effect):
        value = getattr(effect, item.name)
        data[item.name] = _jsonable(value)
    return data


def _jsonable(value: Any) -> Any:
    if isinstance(value, Event):
        return value.model_dump(mode="json", exclude_none=True)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value
