"""Build ledger events for tests with little noise."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from rubricate.ledger.event import Event
from rubricate.ledger.trust import natural_key
from rubricate.report.demo import RUBRIC

BASE = datetime(2024, 3, 1, 12, 0, tzinfo=timezone.utc)
AGORA = RUBRIC  # agora-v3 as the ledger records it
AGORA_IDS = tuple(AGORA.criteria or {})


def at(hours: float) -> datetime:
    """A time `hours` after the base time."""
    return BASE + timedelta(hours=hours)


def event(kind: str, pr: int, hours: float, delivery: str, **fields: Any) -> Event:
    """An event of `kind` on job `pr` of o/r, by author alice unless told otherwise."""
    values: dict[str, Any] = {
        "kind": kind,
        "repo": fields.pop("repo", "o/r"),
        "pr": pr,
        "author": fields.pop("author", "alice"),
        "actor": fields.pop("actor", "rev"),
        "actor_role": fields.pop("actor_role", "write"),
        "at": at(hours),
        "version": fields.pop("version", 1),
        "delivery": delivery,
    }
    values["id"] = natural_key(kind, values["repo"], pr, values["version"], delivery)
    values.update(fields)
    return Event.model_validate(values)


def scored(kind: str, pr: int, hours: float, delivery: str, values: Any, **fields: Any) -> Event:
    """A scoring event with Agora scores (a list in criterion order, or a mapping)."""
    if isinstance(values, (list, tuple)):
        values = zip(AGORA_IDS, values, strict=False)  # a short list leaves the rest unscored
    scores = dict(values)
    fields.setdefault("rubric", AGORA)
    fields.setdefault("source", "reviewer")
    return event(kind, pr, hours, delivery, scores=scores, **fields)


def completed_job(pr: int, first: Any, final: Any, hours: float = 0, **fields: Any) -> list[Event]:
    """A job with an automatic v1 score and a final approval 10 hours later."""
    return [
        scored("first_submission", pr, hours, f"pr:opened:{pr}", first, source="auto", **fields),
        scored("final_approval", pr, hours + 10, f"pr:closed:{pr}", final, gate="passed", **fields),
    ]
