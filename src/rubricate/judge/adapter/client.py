"""The openai adapter: one bounded, negotiated chat completion per call (shell: network, clock).

`openai` is imported inside the constructor, so a path without a judge never loads it. A call
negotiates structured output down `calls.MODES`, carries `max_tokens`, retries only transient
faults within its time, and adds up every attempt (DESIGN.md §7). Each attempt runs in a
daemon thread abandoned when its time is up.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol

from rubricate.judge.adapter.faults import (
    after_fault,
    backoff_s,
    classify,
    read_completion,
    secrets_of,
)
from rubricate.judge.calls import (
    ErrorKind,
    JudgeCallError,
    Negotiated,
    RawReply,
    Spent,
    schema_instruction,
    without_lengths,
)

__all__ = [
    "Deadline",
    "ErrorKind",
    "JudgeCallError",
    "ModeMemory",
    "OpenAIJudgeClient",
    "RawReply",
]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
SCHEMA_NAME = "rubricate_judgment"
MIN_ATTEMPT_S = 1.0
"""A retry is made only when at least this much time is left for it after the wait."""
MAX_TIMEOUT_RETRIES = 1


class Deadline:
    """A monotonic deadline."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._end = clock() + seconds

    def remaining(self) -> float:
        """Seconds left (never negative)."""
        return max(0.0, self._end - self._clock())


class ModeMemory(Protocol):
    """Where what a server accepted is remembered (`server_modes.ServerModes`, or a dict)."""

    def get(self, base_url: str, model: str) -> Negotiated | None: ...

    def put(self, base_url: str, model: str, negotiated: Negotiated) -> None: ...


class _Forgetful:
    def get(self, base_url: str, model: str) -> Negotiated | None:
        return None

    def put(self, base_url: str, model: str, negotiated: Negotiated) -> None:
        return None


class OpenAIJudgeClient:
    """Chat completions with negotiated structured output, on any compatible server."""

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
        modes: ModeMemory | None = None,
    ) -> None:
        from openai import OpenAI

        self._secrets = secrets_of(api_key, base_url)
        self._base_url = base_url or DEFAULT_BASE_URL
        self._timeout_s = timeout_s
        self._max_retries = max_retries
        self._sleep = sleep
        self._clock = clock
        self._modes: ModeMemory = modes if modes is not None else _Forgetful()
        self._owns_http = http_client is None

        def build() -> Any:
            return OpenAI(
                api_key=api_key,
                base_url=self._base_url,
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
        max_tokens: int | None = None,
        remaining_s: float | None = None,
    ) -> RawReply:
        """One completion within `timeout_s` (and `remaining_s`); raises `JudgeCallError` for
        every fault, with the cost of every attempt made."""
        limit = self._timeout_s if remaining_s is None else min(self._timeout_s, remaining_s)
        deadline = Deadline(max(0.0, limit), self._clock)
        known = self._modes.get(self._base_url, model)
        state = known or Negotiated()
        spent = Spent()
        while True:
            request = _request(messages, schema, model, temperature, seed, state, max_tokens)
            try:
                reply = self._with_retries(request, deadline)
            except JudgeCallError as exc:
                spent += exc.spent
                lower = after_fault(state, exc)
                if lower is None:
                    self._remember(model, known, state, exc.kind != "unsupported")
                    raise exc.costing(spent, state.mode).redacted(self._secrets) from None
                state = lower
                continue
            self._remember(model, known, state, True)
            return replace(reply.with_spent(spent + reply.spent), mode=state.mode)

    def _remember(
        self, model: str, known: Negotiated | None, state: Negotiated, accepted: bool
    ) -> None:
        if accepted and state != (known or Negotiated()):
            self._modes.put(self._base_url, model, state)

    def _with_retries(self, request: dict[str, Any], deadline: Deadline) -> RawReply:
        attempt = 0
        timeouts = 0
        spent = Spent()
        while True:
            try:
                reply = self._attempt(request, deadline.remaining())
                return reply.with_spent(spent + reply.spent)
            except JudgeCallError as exc:
                spent += exc.spent
                timeouts += exc.kind == "timeout"
                wait = backoff_s(attempt, exc) if exc.retryable else None
                if attempt >= self._max_retries or timeouts > MAX_TIMEOUT_RETRIES:
                    wait = None
                if wait is None:
                    raise exc.costing(spent) from None
                if deadline.remaining() - wait < MIN_ATTEMPT_S:
                    raise JudgeCallError(
                        exc.kind,
                        f"{exc}; no time left for a retry within judge.timeout_s",
                        spent=spent,
                    ) from None
                self._sleep(wait)
                attempt += 1

    def _attempt(self, request: dict[str, Any], timeout: float) -> RawReply:
        """One request that takes at most `timeout` seconds, whatever the server does."""
        if timeout <= 0:
            raise JudgeCallError("deadline", "the judge call ran out of time (judge.timeout_s)")
        started = self._clock()

        def elapsed() -> Spent:
            return Spent(latency_ms=int((self._clock() - started) * 1000), attempts=1)

        try:
            completion = self._bounded(lambda: self._create(request, timeout), timeout)
        except JudgeCallError as exc:
            raise exc.costing(elapsed()) from None
        try:
            return read_completion(completion, elapsed())
        except JudgeCallError:
            raise
        except Exception:  # any other shape of reply is the server's fault, never a crash
            raise JudgeCallError(
                "malformed", "the server's reply has an unexpected shape", spent=elapsed()
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
    state: Negotiated,
    max_tokens: int | None,
) -> dict[str, Any]:
    sent = schema if state.lengths else without_lengths(schema)
    request: dict[str, Any] = {"model": model, "temperature": temperature}
    if state.mode == "json_schema":
        request["messages"] = list(messages)
        request["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": SCHEMA_NAME, "strict": True, "schema": sent},
        }
    else:
        request["messages"] = _with_schema_text(messages, sent)
        if state.mode == "json_object":
            request["response_format"] = {"type": "json_object", "schema": sent}
    if max_tokens is not None:
        request[state.token_param] = max_tokens
    if seed is not None:
        request["seed"] = seed
    return request


def _with_schema_text(
    messages: Sequence[dict[str, str]], schema: dict[str, Any]
) -> list[dict[str, str]]:
    """The messages with the schema appended to the system message (or in a new one)."""
    extra = schema_instruction(schema)
    out = [dict(m) for m in messages]
    for message in out:
        if message.get("role") == "system":
            message["content"] = message.get("content", "") + extra
            return out
    return [{"role": "system", "content": extra.strip()}, *out]
