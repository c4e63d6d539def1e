"""What a judge call returns or raises, and how its request is shaped (pure: data only).

The runner and the service see only these types; the openai adapter (`client.py`) produces
them. A call may take several HTTP attempts (retries, or moving down the structured-output
ladder): `Spent` adds up the tokens, time and attempts of all of them, failed ones included,
and `Usage` adds up the calls of a judge step.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

from rubricate.errors import RunFailed
from rubricate.redaction import redact

ErrorKind = Literal[
    "timeout", "rate_limit", "server", "auth", "http", "connection", "truncated", "refusal",
    "malformed", "deadline", "unsupported", "other",
]  # fmt: skip
RETRYABLE: frozenset[ErrorKind] = frozenset({"timeout", "rate_limit", "server", "connection"})

OutputMode = Literal["json_schema", "json_object", "prompt"]
MODES: tuple[OutputMode, ...] = ("json_schema", "json_object", "prompt")
"""The structured-output ladder, tried in this order: strict schema, JSON mode with the schema
in the request and the prompt, then plain text with the schema in the prompt."""
TokenParam = Literal["max_tokens", "max_completion_tokens"]
Unsupported = Literal["format", "lengths", "token_param"]
_LENGTH_KEYS = frozenset({"maxLength", "minLength", "maxItems", "minItems"})


@dataclass(frozen=True)
class Spent:
    """What the attempts of one call cost: tokens (where the server said), time, attempts."""

    tokens_in: int = 0
    tokens_out: int = 0
    latency_ms: int = 0
    attempts: int = 0

    def __add__(self, other: Spent) -> Spent:
        return Spent(
            self.tokens_in + other.tokens_in,
            self.tokens_out + other.tokens_out,
            self.latency_ms + other.latency_ms,
            self.attempts + other.attempts,
        )


@dataclass(frozen=True)
class RawReply:
    """The text of a completion, and what the call cost over all of its attempts."""

    text: str
    tokens_in: int
    tokens_out: int
    finish_reason: str
    latency_ms: int
    attempts: int = 1
    mode: OutputMode = "json_schema"

    @property
    def spent(self) -> Spent:
        """The cost as a `Spent`."""
        return Spent(self.tokens_in, self.tokens_out, self.latency_ms, self.attempts)

    def with_spent(self, spent: Spent) -> RawReply:
        """The reply with its cost replaced by `spent`."""
        return replace(
            self,
            tokens_in=spent.tokens_in,
            tokens_out=spent.tokens_out,
            latency_ms=spent.latency_ms,
            attempts=spent.attempts,
        )


class JudgeCallError(RunFailed):
    """A judge call that produced no usable reply; `kind` says which fault, `spent` its cost.

    The judge records it as a finding (the run goes on without the judge's scores); it is a run
    failure, never a user's mistake, should one ever reach the top."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        retry_after: float | None = None,
        spent: Spent | None = None,
        unsupported: Unsupported | None = None,
    ) -> None:
        self.kind = kind
        self.retry_after = retry_after
        self.spent = spent or Spent()
        self.unsupported = unsupported
        """What the server said it does not support: the output mode, the schema's length
        keywords, or `max_tokens` (it wants `max_completion_tokens`)."""
        self.mode: OutputMode | None = None
        """The structured-output mode of the last attempt, once the client knows it."""
        super().__init__(message)

    @property
    def retryable(self) -> bool:
        """True for faults that a later attempt may not meet."""
        return self.kind in RETRYABLE

    def redacted(self, secrets: Iterable[str]) -> JudgeCallError:
        """The same fault with every secret replaced by `***` in its message."""
        message = redact(str(self), secrets)
        copy = JudgeCallError(self.kind, message, self.retry_after, self.spent, self.unsupported)
        copy.mode = self.mode
        return copy

    def costing(self, spent: Spent, mode: OutputMode | None = None) -> JudgeCallError:
        """The same fault with its cost replaced by `spent` (and the mode it was made in)."""
        copy = JudgeCallError(self.kind, str(self), self.retry_after, spent, self.unsupported)
        copy.mode = mode or self.mode
        return copy


@dataclass(frozen=True)
class Negotiated:
    """What a server accepted: the output mode, the token-limit parameter, length keywords."""

    mode: OutputMode = "json_schema"
    token_param: TokenParam = "max_tokens"
    lengths: bool = True
    """False when the server rejected `maxLength`-style keywords in the schema."""

    def as_dict(self) -> dict[str, Any]:
        """A JSON shape for the judge cache directory."""
        return {"mode": self.mode, "token_param": self.token_param, "lengths": self.lengths}

    @classmethod
    def from_dict(cls, data: Any) -> Negotiated | None:
        """The inverse of `as_dict`; None for anything unexpected."""
        if not isinstance(data, dict):
            return None
        mode, param, lengths = data.get("mode"), data.get("token_param"), data.get("lengths")
        if mode not in MODES or param not in ("max_tokens", "max_completion_tokens"):
            return None
        return cls(mode, param, lengths is not False)

    def lower(self) -> Negotiated | None:
        """The next rung down the ladder, or None at the bottom."""
        index = MODES.index(self.mode)
        return replace(self, mode=MODES[index + 1]) if index + 1 < len(MODES) else None


def without_lengths(schema: Any) -> Any:
    """The schema without length keywords (for servers whose strict mode rejects them)."""
    if isinstance(schema, dict):
        return {k: without_lengths(v) for k, v in schema.items() if k not in _LENGTH_KEYS}
    if isinstance(schema, list):
        return [without_lengths(v) for v in schema]
    return schema


SCHEMA_INSTRUCTION = (
    "\n\nReply with one JSON object and nothing else (no code fence, no text before or after"
    " it). It must match this JSON Schema exactly:\n{schema}"
)


def schema_instruction(schema: dict[str, Any]) -> str:
    """The text added to the system message when the server does not enforce the schema."""
    return SCHEMA_INSTRUCTION.format(schema=json.dumps(schema, separators=(",", ":")))


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
        """The JSON shape kept in the cache: every field by its name."""
        return asdict(self)

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
