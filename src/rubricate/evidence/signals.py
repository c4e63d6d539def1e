"""One verifiability heuristic's state and evidence (pure: data)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rubricate.evidence.results import Finding

CHECK_ID = "verifiability"
State = Literal["met", "missing", "n/a"]


@dataclass(frozen=True)
class Signal:
    """One heuristic's state and the evidence behind it."""

    name: str
    state: State
    evidence: str = ""
    finding: Finding | None = None
    note: str = ""
    """What the heuristic left out, and why (shown whatever its state)."""


def missing_signal(
    name: str, message: str, path: str | None = None, line: int | None = None
) -> Signal:
    rule = name.replace(" ", "-")
    finding = Finding(CHECK_ID, message, path, line, "warning", certain=False, rule=rule)
    return Signal(name, "missing", message, finding)
