"""Effects: what a pure handler asks the shell to do, and their shape on GitHub (pure: data).

Handlers return a list of effects; one executor applies them, the ledger first, then the views.
`--dry-run` prints them as JSON lines through `effect_to_dict`. A check run's `output` is cut
to GitHub's limits here (`output`, `annotation_batches`): 50 annotations a request,
65,535-character texts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
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
    fresh: bool = False
    """No sticky comment can exist yet (a PR's `opened` event, the run's first attempt): it is
    created without listing the PR's comments first."""


@dataclass(frozen=True)
class PostComment:
    """Post a new, short comment (a reply to a refused or mistaken command); `marker`, hidden
    in the body, finds it again when the answer to the POST is lost."""

    pr: int
    body: str
    marker: str = ""
    fresh: bool = False
    """The run's first attempt: no earlier attempt can have posted it, so it is not looked for
    first (a re-run attempt looks for it by its marker before posting)."""


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
class Undecided:
    """The run could not decide (a commenter's role could not be read): after its other
    effects, the run fails with `reason`, so that a re-run decides."""

    reason: str


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
    | Undecided
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


ANNOTATIONS_PER_REQUEST = 50
TEXT_LIMIT = 65_535
TITLE_LIMIT = 255
MESSAGE_LIMIT = 60_000
CUT_NOTE = (
    "\n\n_(cut to fit GitHub's 65,535-character limit; the full report is in the step summary)_"
)


def fit(text: str, limit: int = TEXT_LIMIT, note: str = CUT_NOTE) -> str:
    """The text, or its head plus `note`, within `limit` characters."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(note))] + note


def annotation_batches(annotations: Sequence[Annotation]) -> list[list[dict[str, Any]]]:
    """The annotations as API dicts, 50 to a batch (one request each)."""
    items = [annotation_dict(a) for a in annotations]
    return [
        items[i : i + ANNOTATIONS_PER_REQUEST]
        for i in range(0, len(items), ANNOTATIONS_PER_REQUEST)
    ]


def annotation_dict(annotation: Annotation) -> dict[str, Any]:
    """One annotation in the check-runs API shape (line 0 or less becomes line 1)."""
    line = max(1, annotation.line)
    data: dict[str, Any] = {
        "path": annotation.path,
        "start_line": line,
        "end_line": line,
        "annotation_level": annotation.level,
        "message": fit(annotation.message, MESSAGE_LIMIT, "…"),
    }
    if annotation.title:
        data["title"] = fit(annotation.title, TITLE_LIMIT, "…")
    return data


def check_output(
    effect: SetCheckRun, annotations: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The `output` object: title, summary and text cut to fit, plus one batch of annotations."""
    data: dict[str, Any] = {
        "title": fit(effect.title or effect.name, TITLE_LIMIT, "…"),
        "summary": fit(effect.summary or effect.title or effect.name),
    }
    if effect.text:
        data["text"] = fit(effect.text)
    if annotations:
        data["annotations"] = annotations
    return data
