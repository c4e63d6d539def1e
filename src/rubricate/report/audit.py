"""Every override, bypassed gate and dispute, newest first (pure)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rubricate.ledger.event import Event, rfc3339


def audit(events: Iterable[Event]) -> dict[str, list[dict[str, Any]]]:
    """Overrides with reason, approver and version; bypassed gates; disputes."""
    overrides: list[dict[str, Any]] = []
    bypassed: list[dict[str, Any]] = []
    disputes: list[dict[str, Any]] = []
    for event in events:
        if event.override is not None:
            overrides.append({**_base(event), "reason": event.override.reason})
        if event.kind == "final_approval" and event.gate == "bypassed":
            bypassed.append(_base(event))
        if event.kind == "disputed":
            disputes.append({**_base(event), "feedback": event.feedback})
    return {
        name: sorted(rows, key=lambda r: (r["at"], r["repo"], r["pr"]), reverse=True)
        for name, rows in (("overrides", overrides), ("bypassed", bypassed), ("disputes", disputes))
    }


def _base(event: Event) -> dict[str, Any]:
    return {
        "at": rfc3339(event.at),
        "repo": event.repo,
        "pr": event.pr,
        "version": event.version,
        "author": event.author,
        "actor": event.actor,
        "kind": event.kind,
    }
