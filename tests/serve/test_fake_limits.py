"""The fake GitHub's rate limits (for the load benchmark): 80 content-creating requests a minute
and 5,000 requests an hour per token, answered 403 with `retry-after`, and every request made
inside a `retry-after` window counted."""

from __future__ import annotations

import requests

from tests.action.fake_github import Limits


def request(method: str, token: str = "token a") -> requests.PreparedRequest:
    return requests.Request(
        method, "https://api.github.com/repos/o/r/statuses/abc", headers={"Authorization": token}
    ).prepare()


def test_the_81st_write_in_a_minute_is_refused_with_retry_after() -> None:
    now = [0.0]
    limits = Limits(clock=lambda: now[0])
    for _ in range(80):
        assert limits.admit(request("POST")) is None
    assert limits.admit(request("GET")) is None  # reads are not content-creating
    status, headers, _ = limits.admit(request("POST")) or (0, {}, "")
    assert status == 403
    assert headers["retry-after"] == "60"
    assert limits.admit(request("POST", "token b")) is None  # another installation
    now[0] = 30.0
    assert limits.admit(request("GET")) is not None
    assert limits.inside_retry_after == 1
    now[0] = 61.0
    assert limits.admit(request("POST")) is None
    assert limits.inside_retry_after == 1


def test_the_hourly_budget_is_spent_then_refused_until_the_hour_ends() -> None:
    now = [0.0]
    limits = Limits(per_hour=3, clock=lambda: now[0])
    for _ in range(3):
        assert limits.admit(request("GET")) is None
    status, headers, _ = limits.admit(request("GET")) or (0, {}, "")
    assert (status, headers["x-ratelimit-remaining"]) == (403, "0")
    assert headers["retry-after"] == "3600"
    now[0] = 3600.0
    assert limits.admit(request("GET")) is None
