"""Judge call faults: what went wrong, whether to retry, how long to wait, what to try next
(shell: reads the exceptions and responses of the `openai` SDK, imported lazily inside the
functions), and what a completion says (cut off, refused, empty, or a reply).

Every SDK exception becomes a `JudgeCallError` with a short reason from which every secret
has been removed; the caller turns it into `not assessed`, never a pass.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace
from typing import Any

from rubricate.judge.calls import (
    ErrorKind,
    JudgeCallError,
    Negotiated,
    RawReply,
    Spent,
    Unsupported,
)
from rubricate.redaction import redact, url_credentials

__all__ = [
    "ErrorKind",
    "JudgeCallError",
    "after_fault",
    "backoff_s",
    "classify",
    "read_completion",
    "redact",
    "secrets_of",
    "short",
]

INITIAL_BACKOFF_S = 0.5
MAX_BACKOFF_S = 8.0
MAX_RETRY_AFTER_S = 120.0
"""A server that asks to wait longer than this is not retried (the SDK's own limit)."""
_MIN_SECRET_CHARS = 4
_FORMAT_WORDS = ("response_format", "json_schema", "json_object")
_GENERIC_500 = re.compile(
    r"^(?:internal server error|internal error|server error|error|unknown error)?\.?$", re.I
)
"""A 500 whose message says no more than this names nothing in the request: it may pass."""


def secrets_of(api_key: str, base_url: str | None) -> tuple[str, ...]:
    """The strings that must never be shown: the key, and credentials inside the base URL."""
    found = [api_key, *url_credentials(base_url or "")]
    return tuple(s for s in found if len(s) >= _MIN_SECRET_CHARS)


def backoff_s(attempt: int, error: JudgeCallError) -> float | None:
    """How long to wait before retry `attempt + 1`; None when the server asks for too long,
    or is rate-limiting without saying when to come back (a quota, not a burst)."""
    if error.kind == "rate_limit" and error.retry_after is None:
        return None
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
        return _status_error(exc.status_code, _server_message(exc), exc.response.headers)
    if isinstance(exc, openai.APIResponseValidationError):
        return JudgeCallError("malformed", "the server's response did not match the API")
    return JudgeCallError("other", f"{type(exc).__name__}: {short(str(exc))}")


def after_fault(state: Negotiated, exc: JudgeCallError) -> Negotiated | None:
    """What to try next after a fault: a lower rung for an unsupported format, another token
    parameter or a schema without length keywords; None when there is nothing left to try."""
    if exc.kind != "unsupported":
        return None
    if exc.unsupported == "token_param":
        if state.token_param == "max_tokens":
            return replace(state, token_param="max_completion_tokens")
        return None
    if exc.unsupported == "lengths" and state.lengths:
        return replace(state, lengths=False)
    return state.lower()


def read_completion(completion: Any, elapsed: Spent) -> RawReply:
    """Check a completion's shape, finish reason and refusal; return its text and usage."""
    choices = getattr(completion, "choices", None)
    if not choices:
        what = "a non-JSON body" if isinstance(completion, str) else "no choices"
        raise JudgeCallError("malformed", f"the server returned {what}", spent=elapsed)
    usage = getattr(completion, "usage", None)
    spent = replace(
        elapsed,
        tokens_in=max(0, int(getattr(usage, "prompt_tokens", 0) or 0)),
        tokens_out=max(0, int(getattr(usage, "completion_tokens", 0) or 0)),
    )
    choice = choices[0]
    finish = str(getattr(choice, "finish_reason", "") or "")
    message = getattr(choice, "message", None)
    refusal = getattr(message, "refusal", None)
    if finish == "length":
        raise JudgeCallError(
            "truncated",
            f"the reply was cut off at the output token limit ({spent.tokens_out} tokens)",
            spent=spent,
        )
    if finish == "content_filter" or refusal:
        detail = f": {short(str(refusal))}" if refusal else ""
        raise JudgeCallError("refusal", f"the model refused to answer{detail}", spent=spent)
    text = getattr(message, "content", None)
    if not isinstance(text, str) or not text.strip():
        raise JudgeCallError("malformed", "the reply has no content", spent=spent)
    return RawReply(
        text=text,
        tokens_in=spent.tokens_in,
        tokens_out=spent.tokens_out,
        finish_reason=finish,
        latency_ms=spent.latency_ms,
        attempts=1,
    )


def short(text: str, limit: int = 200) -> str:
    """`text` on one line, at most `limit` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _status_error(status: int, said: str, headers: object) -> JudgeCallError:
    """The fault for an HTTP error status and the server's message."""
    message = f"HTTP {status}: {short(said) if said else '(no message)'}"
    lowered = said.lower()
    unsupported = _unsupported(lowered) if status in (400, 422, 500) else None
    if unsupported is not None:
        return JudgeCallError("unsupported", message, unsupported=unsupported)
    return JudgeCallError(_status_kind(status, said), message, _retry_after(headers))


def _unsupported(lowered: str) -> Unsupported | None:
    """What a 400/422/500 message says the server does not support, if anything."""
    if "max_completion_tokens" in lowered:
        return "token_param"
    if "maxlength" in lowered or "minlength" in lowered or "maxitems" in lowered:
        return "lengths"
    if any(word in lowered for word in _FORMAT_WORDS):
        return "format"
    return None


def _status_kind(status: int, said: str) -> ErrorKind:
    if status == 429:
        return "rate_limit"
    if status in (502, 503, 504) or (status == 500 and _GENERIC_500.match(said.strip())):
        return "server"
    if status == 408:
        return "timeout"
    if status in (401, 403):
        return "auth"
    return "http"


def _server_message(exc: Any) -> str:
    """The error message in the server's body, else the body's text ('' when there is none)."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body.get("detail", body))
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        if not error:
            return ""
        return error if isinstance(error, str) else json.dumps(error, default=str)[:2000]
    if isinstance(body, str):
        return body
    try:
        return str(exc.response.text)[:2000]
    except Exception:  # a streamed or closed body: nothing more to say
        return ""


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
