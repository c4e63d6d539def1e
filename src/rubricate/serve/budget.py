"""Each installation's API budget: rate-limit answers become a time to come back, never a sleep
(shell: PostgreSQL, HTTP headers).

A 403 or 429 that carries `retry-after`, or `x-ratelimit-remaining: 0`, or says it is a secondary
rate limit, raises `RateLimited(until)` at once, from inside PyGithub's retry hook, before any
wait; `Budgeted` then refuses every later call of the job without a request (the executor goes
on past a failed view, so the first refusal alone would not stop it). The worker records `until`
for the installation and the job is retried then; a job that starts while its installation is
blocked is put back without a request. After each job the last
`x-ratelimit-*` headers are recorded too, and an installation whose remaining requests fall under
`RESERVE` is blocked until its reset.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from github import GithubRetry
from rubricate.errors import RateLimited, WritesPaced
from rubricate.github.adapter import WRITES

if TYPE_CHECKING:
    import psycopg
    from urllib3 import BaseHTTPResponse
    from urllib3.util.retry import Retry

RESERVE = 50
"""Requests kept back from the hourly budget (for the reconciler and for humans)."""
SECONDARY_WAIT = timedelta(seconds=60)
"""How long to stay away after a secondary rate limit without `retry-after`, as GitHub asks."""


def wait_until(
    status: int, headers: Mapping[str, str], body: bytes, now: datetime
) -> datetime | None:
    """When a rate-limited answer allows the next request, or None when it is no rate limit."""
    if status not in (403, 429):
        return None
    retry_after = headers.get("retry-after", "").strip()
    if retry_after.isdigit():
        return now + timedelta(seconds=int(retry_after))
    reset = headers.get("x-ratelimit-reset", "").strip()
    if headers.get("x-ratelimit-remaining", "").strip() == "0" and reset.isdigit():
        return max(now, datetime.fromtimestamp(int(reset), timezone.utc))
    if status == 429 or b"rate limit" in body.lower():
        return now + SECONDARY_WAIT
    return None


class BudgetRetry(GithubRetry):
    """PyGithub's retries of server errors, with rate limits raised as `RateLimited`."""

    def increment(  # type: ignore[override]
        self,
        method: str | None = None,
        url: str | None = None,
        response: BaseHTTPResponse | None = None,
        error: Exception | None = None,
        _pool: Any = None,
        _stacktrace: Any = None,
    ) -> Retry:
        """Raise `RateLimited` for a rate-limit answer; anything else as PyGithub does."""
        if response is not None and response.status in (403, 429):
            headers = {k.lower(): v for k, v in response.headers.items()}
            body = self.get_content(response, url or "") if response.status == 403 else b""  # type: ignore[arg-type]
            until = wait_until(response.status, headers, body, datetime.now(timezone.utc))
            if until is not None:
                raise RateLimited(until)
        return super().increment(method, url, response, error, _pool, _stacktrace)  # type: ignore[arg-type]


def blocked_until(
    conn: psycopg.Connection[Any], installation: int, now: datetime
) -> datetime | None:
    """The time the installation may call GitHub again, when that is later than `now`."""
    row = conn.execute(
        "SELECT blocked_until FROM rubricate_budgets WHERE installation = %s", (installation,)
    ).fetchone()
    until = row[0] if row else None
    return until if until is not None and until > now else None


def record(
    conn: psycopg.Connection[Any],
    installation: int,
    now: datetime,
    *,
    remaining: int | None = None,
    reset_at: datetime | None = None,
    until: datetime | None = None,
) -> None:
    """Record what GitHub said of the installation's budget."""
    if until is None and remaining is not None and remaining < RESERVE and reset_at is not None:
        until = reset_at
    conn.execute(
        "INSERT INTO rubricate_budgets (installation, remaining, reset_at, blocked_until,"
        " updated_at) VALUES (%s, %s, %s, %s, %s) ON CONFLICT (installation) DO UPDATE SET"
        " remaining = coalesce(excluded.remaining, rubricate_budgets.remaining),"
        " reset_at = coalesce(excluded.reset_at, rubricate_budgets.reset_at),"
        " blocked_until = greatest(excluded.blocked_until, rubricate_budgets.blocked_until),"
        " updated_at = excluded.updated_at",
        (installation, remaining, reset_at, until, now),
    )


def headers_budget(rate_limiting: tuple[int, int], reset: int) -> dict[str, Any]:
    """The keyword arguments of `record` from PyGithub's last `x-ratelimit-*` headers (none
    before any request)."""
    remaining, limit = rate_limiting
    if limit < 0:
        return {}
    at = datetime.fromtimestamp(reset, timezone.utc) if reset > 0 else None
    return {"remaining": remaining, "reset_at": at}


def last_headers(requester: Any) -> tuple[tuple[int, int], int]:
    """PyGithub's last `x-ratelimit-*` values of a client (kept between jobs)."""
    return requester.rate_limiting, requester.rate_limiting_resettime


def seen_since(requester: Any, before: tuple[tuple[int, int], int]) -> dict[str, Any]:
    """`headers_budget` of the client's last answer when it came after `before` was read (a
    kept client's older answer may be staler than what another job recorded since)."""
    after = last_headers(requester)
    return headers_budget(*after) if after != before else {}


def stopped(
    conn: psycopg.Connection[Any], installation: int, now: datetime, exc: RateLimited
) -> None:
    """Record a job's rate limit: GitHub's blocks the installation until its time; a write
    refused by the installation's own pace (`WritesPaced`) blocks nothing but its job."""
    if not isinstance(exc, WritesPaced):
        with conn.transaction():
            record(conn, installation, now, until=exc.until)


class Budgeted:
    """A GitHub client that stops at the first rate limit: every later call raises the same
    `RateLimited` without a request. `limited` holds it. With `pace`, each write (a method in
    `WRITES`) first takes its slot (`rubricate.serve.write_pace.pacer`), which may refuse it."""

    def __init__(self, api: Any, pace: Callable[[], None] | None = None) -> None:
        self._api = api
        self._pace = pace
        self.limited: RateLimited | None = None

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._api, name)
        if not callable(found):
            return found
        pace = self._pace if name in WRITES else None

        def call(*args: Any, **kwargs: Any) -> Any:
            if self.limited is not None:
                raise self.limited
            try:
                if pace is not None:
                    pace()
                return found(*args, **kwargs)
            except RateLimited as exc:
                self.limited = exc
                raise

        return call
