"""Who scored what: each version's latest score per criterion and source (pure).

Sources are `heuristic` (automatic evidence checks, ledger source `auto`), `judge` (the LLM
judge) and `reviewer`. An automatic event may carry both: its `evidence` entries of type
`criterion` name each criterion's own source, and the event's `source` covers the rest.
A later score replaces an earlier one of the same source on the same version; a null (not
applicable) removes it. Booleans map to the ends of the recorded scale (0 and 1 without one).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from rubricate.ledger.event import Event, ScaleRef, criterion_source
from rubricate.ledger.fold import event_order

SOURCES = ("heuristic", "judge", "reviewer")
_LEDGER_SOURCE = {"auto": "heuristic", "judge": "judge", "reviewer": "reviewer"}
_SCORING = frozenset({"first_submission", "review_scored", "approved", "final_approval"})


@dataclass(frozen=True)
class Scored:
    """One criterion's latest score from one source on one version of one job."""

    repo: str
    pr: int
    version: int
    criterion: str
    source: str
    value: float
    scale: ScaleRef | None


VersionKey = tuple[str, int, int, str]
"""`(repo, pr, version, criterion)`."""


def latest_scores(events: Iterable[Event]) -> dict[VersionKey, dict[str, Scored]]:
    """For each version and criterion, the latest score of each source."""
    found: dict[VersionKey, dict[str, Scored]] = defaultdict(dict)
    for event in sorted(events, key=event_order):
        if event.kind not in _SCORING or not event.scores:
            continue
        scale = event.rubric.scale if event.rubric is not None else None
        for criterion, value in event.scores.items():
            source = _LEDGER_SOURCE.get(criterion_source(event, criterion))
            if source is None:
                continue
            key = (event.repo, event.pr, event.version, criterion)
            if value is None:
                found[key].pop(source, None)
                continue
            number = _number(value, scale)
            found[key][source] = Scored(*key, source, number, scale)
    return found


def _number(value: float | bool, scale: ScaleRef | None) -> float:
    if isinstance(value, bool):
        low, high = (scale.min, scale.max) if scale is not None else (0.0, 1.0)
        return high if value else low
    return float(value)
