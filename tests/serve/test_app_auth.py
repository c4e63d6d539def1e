"""The App's installation tokens: kept while they have time left, asked again before the
one-hour expiry (a clock passed in; the fake GitHub's token endpoint)."""

from __future__ import annotations

import dataclasses
import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import requests

from rubricate.serve.app_auth import REFRESH_MARGIN, InstallationTokens, read_credentials
from tests.action.fake_github import FakeGitHub

T0 = datetime(2026, 3, 5, 12, 0, tzinfo=timezone.utc)
INSTALLATION = 91


def test_a_token_is_reused_until_the_margin_then_refreshed(
    fake_github: FakeGitHub, app_key: Path
) -> None:
    granted: list[str] = []

    def grant(_request: requests.PreparedRequest) -> tuple[int, dict[str, str], str]:
        token = f"ghs_token{len(granted):031d}"
        expires = T0 + timedelta(hours=len(granted) + 1)
        granted.append(token)
        body = {"token": token, "expires_at": expires.strftime("%Y-%m-%dT%H:%M:%SZ")}
        return 201, {"Content-Type": "application/json"}, json.dumps(body)

    fake_github.rsps.add_callback(
        "POST",
        re.compile(
            rf"https://api\.github\.com(?::443)?/app/installations/{INSTALLATION}/access_tokens$"
        ),
        callback=grant,
    )
    credentials = read_credentials("4242", str(app_key), "https://api.github.com")
    tokens = InstallationTokens(dataclasses.replace(credentials, pace=False))
    first = tokens.token(INSTALLATION, now=T0)
    expiry = T0 + timedelta(hours=1)
    just_before = expiry - REFRESH_MARGIN - timedelta(seconds=1)
    assert tokens.token(INSTALLATION, now=just_before) == first
    assert len(granted) == 1
    second = tokens.token(INSTALLATION, now=expiry - REFRESH_MARGIN)
    assert second != first
    assert len(granted) == 2
    assert tokens.token(INSTALLATION, now=expiry + timedelta(minutes=30)) == second
