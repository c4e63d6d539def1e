"""The openai adapter: one structured chat completion per call (shell: network and clock).

`openai` is imported lazily, inside the constructor, so `rubricate --version` and every
non-judge path never load it. The SDK's own retries are off: this client retries 429, 5xx,
timeouts and connection faults itself, at most `max_retries` times, and only while the wait and
the next attempt still fit in the time left (a `Retry-After` of two minutes never overruns
the step's deadline). Each attempt runs in a daemon thread that is abandoned when its time is
up, so a server that trickles its reply cannot hold the step past its deadline either.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rubricate.judge.client_faults import (
    ErrorKind,
    JudgeCallError,
    backoff_s,
    classify,
    secrets_of,
    short,
)

__all__ = ["Deadline", "ErrorKind", "JudgeCallError", "OpenAIJudgeClient", "RawReply"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
SCHEMA_NAME = "rubricate_judgment"
MIN_ATTEMPT_S = 1.0
"""A retry is made only when at least this much time is left for it after the wait."""


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

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._end = clock() + seconds

    def remaining(self) -> float:
        """Seconds left (never negative)."""
        return max(0.0, self._end - self._clock())


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
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        from openai import OpenAI

        self._secrets = secrets_of(api_key, base_url)
        self._timeout_s = timeout_s
        self._max_retries = max_retries
        self._sleep = sleep
        self._clock = clock
        self._owns_http = http_client is None

        def build() -> Any:
            return OpenAI(
                api_key=api_key,
                base_url=base_url or DEFAULT_BASE_URL,
                timeout=timeout_s,
                max_retries=0,
                http_client=http_client,
            )

        self._build = build
        try:
            self._sdk = build()
        except Exception as exc:  # a bad base URL or option is a judge fault, not a crash
            raise classify(exc).redacted(self._secrets) from None

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
        deadline = Deadline(math.inf if remaining_s is None else remaining_s, self._clock)
        request = _request(messages, schema, model, temperature, seed)
        try:
            return self._with_retries(request, deadline)
        except JudgeCallError as exc:
            raise exc.redacted(self._secrets) from None

    def _with_retries(self, request: dict[str, Any], deadline: Deadline) -> RawReply:
        attempt = 0
        while True:
            try:
                return self._attempt(request, min(self._timeout_s, deadline.remaining()))
            except JudgeCallError as exc:
                wait = backoff_s(attempt, exc) if exc.retryable else None
                if attempt >= self._max_retries or wait is None:
                    raise
                if deadline.remaining() - wait < MIN_ATTEMPT_S:
                    raise JudgeCallError(
                        exc.kind, f"{exc}; no time left for a retry before the judge's deadline"
                    ) from None
                self._sleep(wait)
                attempt += 1

    def _attempt(self, request: dict[str, Any], timeout: float) -> RawReply:
        """One request that takes at most `timeout` seconds, whatever the server does."""
        if timeout <= 0:
            raise JudgeCallError("deadline", "the judge step ran out of time")
        started = self._clock()
        completion = self._bounded(lambda: self._create(request, timeout), timeout)
        latency_ms = int((self._clock() - started) * 1000)
        try:
            return _reply(completion, latency_ms)
        except JudgeCallError:
            raise
        except Exception:  # any other shape of reply is the server's fault, never a crash
            raise JudgeCallError(
                "malformed", "the server's reply has an unexpected shape"
            ) from None

    def _create(self, request: dict[str, Any], timeout: float) -> Any:
        try:
            return self._sdk.chat.completions.create(**request, timeout=timeout)
        except Exception as exc:  # every SDK fault is mapped, none escapes
            raise classify(exc) from None

    def _bounded(self, call: Callable[[], Any], timeout: float) -> Any:
        """Run `call` in a daemon thread; a call still running after `timeout` is abandoned."""
        outcome: list[tuple[bool, Any]] = []

        def work() -> None:
            try:
                outcome.append((True, call()))
            except BaseException as exc:  # handed back to the caller's thread below
                outcome.append((False, exc))

        worker = threading.Thread(target=work, name="rubricate-judge-call", daemon=True)
        worker.start()
        worker.join(timeout)
        if not outcome:
            self._abandon()
            raise JudgeCallError("timeout", f"no complete reply within {timeout:.3g} s")
        done, value = outcome[0]
        if done:
            return value
        raise value

    def _abandon(self) -> None:
        """Close our own connections so the abandoned request ends; start afresh for a retry."""
        if not self._owns_http:
            return
        with contextlib.suppress(Exception):  # closing is best effort; the thread is a daemon
            self._sdk.close()
        self._sdk = self._build()


def _request(
    messages: Sequence[dict[str, str]],
    schema: dict[str, Any],
    model: str,
    temperature: float,
    seed: int | None,
) -> dict[str, Any]:
    request: dict[str, Any] = {
        "model": model,
        "messages": list(messages),
        "temperature": temperature,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": SCHEMA_NAME, "strict": True, "schema": schema},
        },
    }
    if seed is not None:
        request["seed"] = seed
    return request


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
        detail = f": {short(str(refusal))}" if refusal else ""
        raise JudgeCallError("refusal", f"the model refused to answer{detail}")
    text = getattr(message, "content", None)
    if not isinstance(text, str) or not text.strip():
        raise JudgeCallError("malformed", "the reply has no content")
    usage = getattr(completion, "usage", None)
    return RawReply(
        text=text,
        tokens_in=max(0, int(getattr(usage, "prompt_tokens", 0) or 0)),
        tokens_out=max(0, int(getattr(usage, "completion_tokens", 0) or 0)),
        finish_reason=finish,
        latency_ms=latency_ms,
    )
