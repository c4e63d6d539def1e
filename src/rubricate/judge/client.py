"""The openai adapter: one structured chat completion per call (shell: network and clock).

`openai` is imported lazily, inside the constructor, so `rubricate --version` and every
non-judge path never load it. Every SDK failure becomes a `JudgeCallError` with a short,
secret-free reason; the caller turns it into `not assessed`, never a pass.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

DEFAULT_BASE_URL = "https://api.openai.com/v1"
SCHEMA_NAME = "rubricate_judgment"
ErrorKind = Literal[
    "timeout", "rate_limit", "server", "auth", "http", "connection", "truncated", "refusal",
    "malformed", "deadline", "other",
]  # fmt: skip


class JudgeCallError(Exception):
    """A judge call that produced no usable reply; `kind` says which fault."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        self.kind = kind
        super().__init__(message)


@dataclass(frozen=True)
class RawReply:
    """The text of a completion and what it cost."""

    text: str
    tokens_in: int
    tokens_out: int
    finish_reason: str
    latency_ms: int


class Deadline:
    """A monotonic deadline for the whole judge step."""

    def __init__(self, seconds: float) -> None:
        self._end = time.monotonic() + seconds

    def remaining(self) -> float:
        """Seconds left (never negative)."""
        return max(0.0, self._end - time.monotonic())


class OpenAIJudgeClient:
    """Chat completions with a strict JSON-schema response format, on any compatible server."""

    def __init__(
        self,
        api_key: str,
        base_url: str | None,
        *,
        timeout_s: float,
        max_retries: int,
        http_client: Any = None,
    ) -> None:
        from openai import OpenAI

        self._secret = api_key
        self._timeout_s = timeout_s
        self._max_retries = max_retries
        try:
            self._sdk = OpenAI(
                api_key=api_key,
                base_url=base_url or DEFAULT_BASE_URL,
                timeout=timeout_s,
                max_retries=max_retries,
                http_client=http_client,
            )
        except Exception as exc:  # a bad base URL or option is a judge fault, not a crash
            raise self._mapped(exc) from None

    def complete(
        self,
        messages: Sequence[dict[str, str]],
        schema: dict[str, Any],
        model: str,
        temperature: float,
        seed: int | None,
        *,
        remaining_s: float | None = None,
    ) -> RawReply:
        """One completion within `remaining_s`; raises `JudgeCallError` for every fault."""
        started = time.monotonic()
        try:
            completion = self._create(messages, schema, model, temperature, seed, remaining_s)
        except JudgeCallError:
            raise
        except Exception as exc:  # every SDK fault is mapped, none escapes
            raise self._mapped(exc) from None
        latency_ms = int((time.monotonic() - started) * 1000)
        return _reply(completion, latency_ms)

    def _create(
        self,
        messages: Sequence[dict[str, str]],
        schema: dict[str, Any],
        model: str,
        temperature: float,
        seed: int | None,
        remaining_s: float | None,
    ) -> Any:
        timeout, retries = self._limits(remaining_s)
        extra: dict[str, Any] = {} if seed is None else {"seed": seed}
        completions: Any = self._sdk.with_options(max_retries=retries).chat.completions
        return completions.create(
            model=model,
            messages=list(messages),
            temperature=temperature,
            response_format={
                "type": "json_schema",
                "json_schema": {"name": SCHEMA_NAME, "strict": True, "schema": schema},
            },
            timeout=timeout,
            **extra,
        )

    def _limits(self, remaining_s: float | None) -> tuple[float, int]:
        """A request timeout and a retry count whose worst case fits in `remaining_s`."""
        if remaining_s is None:
            return self._timeout_s, self._max_retries
        timeout = max(0.001, min(self._timeout_s, remaining_s))
        attempts = int(remaining_s // timeout)
        return timeout, max(0, min(self._max_retries, attempts - 1))

    def _mapped(self, exc: Exception) -> JudgeCallError:
        kind, message = _classify(exc)
        return JudgeCallError(kind, _redact(message, self._secret))


def _reply(completion: Any, latency_ms: int) -> RawReply:
    """Check a completion's shape, finish reason and refusal; return its text and usage."""
    choices = getattr(completion, "choices", None)
    if not choices:
        what = "a non-JSON body" if isinstance(completion, str) else "no choices"
        raise JudgeCallError("malformed", f"the server returned {what}")
    choice = choices[0]
    finish = str(getattr(choice, "finish_reason", "") or "")
    message = getattr(choice, "message", None)
    refusal = getattr(message, "refusal", None)
    if finish == "length":
        raise JudgeCallError("truncated", "the reply was cut off at the output token limit")
    if finish == "content_filter" or refusal:
        detail = f": {_short(str(refusal))}" if refusal else ""
        raise JudgeCallError("refusal", f"the model refused to answer{detail}")
    text = getattr(message, "content", None)
    if not isinstance(text, str) or not text.strip():
        raise JudgeCallError("malformed", "the reply has no content")
    usage = getattr(completion, "usage", None)
    return RawReply(
        text=text,
        tokens_in=int(getattr(usage, "prompt_tokens", 0) or 0),
        tokens_out=int(getattr(usage, "completion_tokens", 0) or 0),
        finish_reason=finish,
        latency_ms=latency_ms,
    )


def _classify(exc: Exception) -> tuple[ErrorKind, str]:
    """A fault kind and a short reason for an exception raised by the SDK."""
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return "timeout", "the request timed out"
    if isinstance(exc, openai.APIConnectionError):
        return "connection", f"could not reach the server ({_short(str(exc))})"
    if isinstance(exc, openai.LengthFinishReasonError):
        return "truncated", "the reply was cut off at the output token limit"
    if isinstance(exc, openai.ContentFilterFinishReasonError):
        return "refusal", "the content filter stopped the reply"
    if isinstance(exc, openai.APIStatusError):
        return _status_kind(exc.status_code), f"HTTP {exc.status_code}: {_short(str(exc))}"
    if isinstance(exc, openai.APIResponseValidationError):
        return "malformed", "the server's response did not match the API"
    return "other", f"{type(exc).__name__}: {_short(str(exc))}"


def _status_kind(status: int) -> ErrorKind:
    if status == 429:
        return "rate_limit"
    if status >= 500:
        return "server"
    if status in (401, 403):
        return "auth"
    return "http"


def _redact(message: str, secret: str) -> str:
    return message.replace(secret, "***") if secret else message


def _short(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
