"""Rate limits become a time to come back: read from GitHub's headers, raised before any wait,
recorded per installation, and honoured by the next job without a request."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest

from github import Github, GithubException
from rubricate.errors import GitHubError, JobFailed, RateLimited
from rubricate.serve.budget import (
    SECONDARY_WAIT,
    Budgeted,
    BudgetRetry,
    last_headers,
    seen_since,
    wait_until,
)
from rubricate.serve.tasks import Retry

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


def test_retry_after_gives_the_time_to_come_back() -> None:
    assert wait_until(429, {"retry-after": "30"}, b"", NOW) == NOW + timedelta(seconds=30)
    assert wait_until(403, {"retry-after": "5"}, b"", NOW) == NOW + timedelta(seconds=5)


def test_an_exhausted_budget_waits_for_its_reset() -> None:
    reset = int((NOW + timedelta(minutes=7)).timestamp())
    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)}
    assert wait_until(403, headers, b"", NOW) == NOW + timedelta(minutes=7)


def test_a_secondary_limit_without_headers_waits_a_minute() -> None:
    body = b'{"message": "You have exceeded a secondary rate limit."}'
    assert wait_until(403, {}, body, NOW) == NOW + SECONDARY_WAIT
    assert wait_until(429, {}, b"", NOW) == NOW + SECONDARY_WAIT


def test_other_answers_are_no_rate_limit() -> None:
    assert (
        wait_until(403, {"x-ratelimit-remaining": "12"}, b'{"message": "Forbidden"}', NOW) is None
    )
    assert wait_until(500, {"retry-after": "3"}, b"", NOW) is None
    assert wait_until(200, {}, b"", NOW) is None


class _Limited(http.server.BaseHTTPRequestHandler):
    answers: ClassVar[list[tuple[int, dict[str, str], bytes]]] = []
    seen: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.seen.append(self.path)
        status, headers, body = self.answers[min(len(self.seen), len(self.answers)) - 1]
        self.send_response(status)
        for name, value in {**headers, "Content-Type": "application/json"}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture
def loopback() -> Iterator[str]:
    """A tiny HTTP server on 127.0.0.1 answering with `_Limited.answers`."""
    _Limited.seen = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Limited)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        thread.join(timeout=10)


def client(url: str) -> Github:
    return Github(base_url=url, retry=BudgetRetry(total=2, backoff_factor=0), lazy=False)


def test_a_429_raises_at_once_without_retrying_or_sleeping(loopback: str) -> None:
    _Limited.answers = [(429, {"Retry-After": "120"}, b'{"message": "slow down"}')]
    started = datetime.now(timezone.utc)
    with pytest.raises(RateLimited) as raised:
        client(loopback).get_repo("octo/widgets")
    assert _Limited.seen == ["/repos/octo/widgets"]  # one request: no retry
    assert raised.value.until >= started + timedelta(seconds=119)


def test_an_exhausted_budget_raises_with_its_reset(loopback: str) -> None:
    reset = int((datetime.now(timezone.utc) + timedelta(minutes=30)).timestamp())
    headers = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)}
    _Limited.answers = [(403, headers, b'{"message": "API rate limit exceeded"}')]
    with pytest.raises(RateLimited) as raised:
        client(loopback).get_repo("octo/widgets")
    assert raised.value.until == datetime.fromtimestamp(reset, timezone.utc)
    assert len(_Limited.seen) == 1


def test_a_plain_403_stays_an_api_error(loopback: str) -> None:
    _Limited.answers = [(403, {"X-RateLimit-Remaining": "4000"}, b'{"message": "Forbidden"}')]
    with pytest.raises(GithubException) as raised:
        client(loopback).get_repo("octo/widgets")
    assert raised.value.status == 403


def test_after_a_rate_limit_every_later_call_is_refused_without_a_request() -> None:
    calls: list[str] = []
    until = NOW + timedelta(minutes=1)

    class Api:
        bot_login = "rubricate[bot]"

        def set_status(self, sha: str) -> None:
            calls.append(sha)
            if sha == "b":
                raise RateLimited(until)

    api = Budgeted(Api())
    assert api.bot_login == "rubricate[bot]"
    api.set_status("a")
    with pytest.raises(RateLimited):
        api.set_status("b")
    with pytest.raises(RateLimited):
        api.set_status("c")
    assert calls == ["a", "b"]
    assert api.limited is not None
    assert api.limited.until == until


def test_a_rate_limited_job_is_retried_at_githubs_time_others_with_a_growing_wait() -> None:
    until = NOW + timedelta(minutes=3)
    job: Any = SimpleNamespace(attempts=0)
    decision = Retry().get_retry_decision(exception=RateLimited(until), job=job)
    assert decision is not None
    assert decision.retry_at == until
    first = Retry().get_retry_decision(exception=JobFailed(1, GitHubError("502")), job=job)
    later = Retry().get_retry_decision(exception=JobFailed(4, GitHubError("502")), job=job)
    assert first is not None
    assert later is not None
    assert first.retry_at is not None
    assert later.retry_at is not None
    assert later.retry_at - first.retry_at > timedelta(seconds=30)
    assert Retry().get_retry_decision(exception=JobFailed(99, GitHubError("502")), job=job) is None


def test_a_kept_client_reports_only_the_answers_of_this_job() -> None:
    requester = SimpleNamespace(rate_limiting=(4000, 5000), rate_limiting_resettime=1_800_000_000)
    before = last_headers(requester)
    assert seen_since(requester, before) == {}  # no request: an older job's headers, not sent
    requester.rate_limiting = (3990, 5000)
    seen = seen_since(requester, before)
    assert seen["remaining"] == 3990
    assert seen["reset_at"] == datetime.fromtimestamp(1_800_000_000, timezone.utc)
