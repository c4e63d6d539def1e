"""Judge call faults: what went wrong, whether to retry, how long to wait (shell: reads the
exceptions and responses of the `openai` SDK, imported lazily inside the functions).

Every SDK exception becomes a `JudgeCallError` with a short reason from which every secret
has been removed; the caller turns it into `not assessed`, never a pass.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Literal

from rubricate.redaction import redact as redact
from rubricate.redaction import url_credentials

ErrorKind = Literal[
    "timeout", "rate_limit", "server", "auth", "http", "connection", "truncated", "refusal",
    "malformed", "deadline", "other",
]  # fmt: skip
RETRYABLE: frozenset[ErrorKind] = frozenset({"timeout", "rate_limit", "server", "connection"})
INITIAL_BACKOFF_S = 0.5
MAX_BACKOFF_S = 8.0
MAX_RETRY_AFTER_S = 120.0
"""A server that asks to wait longer than this is not retried (the SDK's own limit)."""
_MIN_SECRET_CHARS = 4


class JudgeCallError(Exception):
    """A judge call that produced no usable reply; `kind` says which fault."""

    def __init__(self, kind: ErrorKind, message: str, retry_after: float | None = None) -> None:
        self.kind = kind
        self.retry_after = retry_after
        super().__init__(message)

    @property
    def retryable(self) -> bool:
        """True for faults that a later attempt may not meet: timeouts, 429, 5xx, connection."""
        return self.kind in RETRYABLE

    def redacted(self, secrets: Iterable[str]) -> JudgeCallError:
        """The same fault with every secret replaced by `***` in its message."""
        return JudgeCallError(self.kind, redact(str(self), secrets), self.retry_after)


def secrets_of(api_key: str, base_url: str | None) -> tuple[str, ...]:
    """The strings that must never be shown: the key, and credentials inside the base URL."""
    found = [api_key, *url_credentials(base_url or "")]
    return tuple(s for s in found if len(s) >= _MIN_SECRET_CHARS)


def backoff_s(attempt: int, error: JudgeCallError) -> float | None:
    """How long to wait before retry `attempt + 1`; None when the server asks for too long."""
    if error.retry_after is not None:
        return error.retry_after if error.retry_after <= MAX_RETRY_AFTER_S else None
    return min(INITIAL_BACKOFF_S * 2.0**attempt, MAX_BACKOFF_S)


def classify(exc: Exception) -> JudgeCallError:
    """The fault for an exception raised by the SDK, with a short reason."""
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return JudgeCallError("timeout", "the request timed out")
    if isinstance(exc, openai.APIConnectionError):
        return JudgeCallError("connection", f"could not reach the server ({short(str(exc))})")
    if isinstance(exc, openai.LengthFinishReasonError):
        return JudgeCallError("truncated", "the reply was cut off at the output token limit")
    if isinstance(exc, openai.ContentFilterFinishReasonError):
        return JudgeCallError("refusal", "the content filter stopped the reply")
    if isinstance(exc, openai.APIStatusError):
        kind = _status_kind(exc.status_code)
        message = f"HTTP {exc.status_code}: {short(str(exc))}"
        return JudgeCallError(kind, message, _retry_after(exc.response.headers))
    if isinstance(exc, openai.APIResponseValidationError):
        return JudgeCallError("malformed", "the server's response did not match the API")
    return JudgeCallError("other", f"{type(exc).__name__}: {short(str(exc))}")


def short(text: str, limit: int = 200) -> str:
    """`text` on one line, at most `limit` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _status_kind(status: int) -> ErrorKind:
    if status == 429:
        return "rate_limit"
    if status >= 500:
        return "server"
    if status == 408:
        return "timeout"
    if status in (401, 403):
        return "auth"
    return "http"


def _retry_after(headers: object) -> float | None:
    """Seconds from `retry-after-ms` or `retry-after` (a number); None when absent or bad."""
    get = getattr(headers, "get", None)
    if get is None:
        return None
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        try:
            value = float(get(name))
        except (TypeError, ValueError):
            continue
        if math.isinf(value) and value > 0:
            return MAX_RETRY_AFTER_S + 1
        if math.isfinite(value) and value >= 0:
            return value / divisor
    return None
