"""What one judge step produced, before it is merged into a report (pure: data only).

A run holds the validated judgments (with their verified quotes), the criteria left
`not assessed` and why, and what the calls cost. Only a run without errors is cached.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rubricate.judge.budget import LeftOut
from rubricate.judge.hidden import Stripped
from rubricate.judge.prompt_text import PROMPT_VERSION
from rubricate.judge.reply import CriterionJudgment

if TYPE_CHECKING:
    from rubricate.judge.calls import Spent

CACHE_FORMAT = 3


@dataclass(frozen=True)
class Usage:
    """Tokens and time spent on judge calls, summed over every attempt (failed ones too)."""

    tokens_in: int = 0
    tokens_out: int = 0
    latency_ms: int = 0
    calls: int = 0
    attempts: int = 0
    """HTTP requests made: retries and structured-output negotiation included."""
    mode: str | None = None
    """The structured-output mode of the last call that answered (`calls.MODES`)."""

    def plus(self, spent: Spent, mode: str | None = None) -> Usage:
        """This usage with one more call added."""
        return self + Usage(
            spent.tokens_in, spent.tokens_out, spent.latency_ms, 1, spent.attempts, mode
        )

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.tokens_in + other.tokens_in,
            self.tokens_out + other.tokens_out,
            self.latency_ms + other.latency_ms,
            self.calls + other.calls,
            self.attempts + other.attempts,
            other.mode or self.mode,
        )

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape kept in the cache."""
        return {
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "latency_ms": self.latency_ms,
            "calls": self.calls,
            "attempts": self.attempts,
            "mode": self.mode,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Usage:
        """The inverse of `as_dict` (KeyError, TypeError or ValueError if bad)."""
        mode = data.get("mode")
        return cls(
            int(data["tokens_in"]),
            int(data["tokens_out"]),
            int(data["latency_ms"]),
            int(data["calls"]),
            int(data.get("attempts", data["calls"])),
            str(mode) if mode is not None else None,
        )


@dataclass(frozen=True)
class Shown:
    """What the judge was shown of the change."""

    files_seen: tuple[str, ...] = ()
    files_truncated: tuple[str, ...] = ()
    files_left_out: tuple[LeftOut, ...] = ()
    tokens_estimate: int = 0
    stripped: tuple[Stripped, ...] = ()
    """Hidden text removed before the judge saw it (request fields and files)."""


@dataclass(frozen=True)
class JudgeRun:
    """The result of the judge step for one submission."""

    model: str
    judgments: tuple[CriterionJudgment, ...] = ()
    not_assessed: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    usage: Usage = Usage()
    shown: Shown = Shown()
    cached: bool = False
    prompt_version: str = PROMPT_VERSION

    @property
    def ok(self) -> bool:
        """True when every call succeeded and every criterion was assessed."""
        return not self.errors and not self.not_assessed

    def as_cache(self) -> dict[str, Any]:
        """The JSON stored in the cache."""
        return {
            "format": CACHE_FORMAT,
            "model": self.model,
            "prompt_version": self.prompt_version,
            "judgments": [j.as_dict() for j in self.judgments],
            "usage": self.usage.as_dict(),
            "shown": {
                "files_seen": list(self.shown.files_seen),
                "files_truncated": list(self.shown.files_truncated),
                "files_left_out": [item.as_dict() for item in self.shown.files_left_out],
                "tokens_estimate": self.shown.tokens_estimate,
                "stripped": [item.as_dict() for item in self.shown.stripped],
            },
        }

    @classmethod
    def from_cache(cls, data: dict[str, Any]) -> JudgeRun:
        """A cached run, with what it originally cost (KeyError, TypeError or ValueError if
        bad); `cached` says that it cost nothing this time."""
        if data.get("format") != CACHE_FORMAT or data.get("prompt_version") != PROMPT_VERSION:
            raise ValueError("cache entry of another format or prompt version")
        shown = data["shown"]
        return cls(
            model=str(data["model"]),
            judgments=tuple(CriterionJudgment.from_dict(j) for j in data["judgments"]),
            shown=Shown(
                tuple(str(p) for p in shown["files_seen"]),
                tuple(str(p) for p in shown["files_truncated"]),
                tuple(LeftOut(str(i["path"]), str(i["reason"])) for i in shown["files_left_out"]),
                int(shown["tokens_estimate"]),
                tuple(Stripped.from_dict(i) for i in shown["stripped"]),
            ),
            usage=Usage.from_dict(data["usage"]),
            cached=True,
        )
