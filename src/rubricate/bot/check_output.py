"""Check-run output within GitHub's limits: 50 annotations a request, 65,535-char texts (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rubricate.bot.effects import Annotation, SetCheckRun

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


def output(effect: SetCheckRun, annotations: list[dict[str, Any]] | None = None) -> dict[str, Any]:
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
