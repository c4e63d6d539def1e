"""The App's installation tokens: kept while they have time left, asked again before the
one-hour expiry (a clock passed in; the fake GitHub's token endpoint)."""

from __future__ import annotations

import dataclasses
import json
import re
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import requests

from github import Github
from rubricate.serve.app_auth import REFRESH_MARGIN, InstallationTokens, read_credentials
from tests.action.fake_github import FakeGitHub

T0 = datetime(2026, 3, 5, 12, 0, tzinfo=timezone.utc)
INSTALLATION = 91


@dataclasses.dataclass
class App:
    """An App's tokens and the installation tokens the fake GitHub granted it."""

    tokens: InstallationTokens
    granted: list[str]


@pytest.fixture
def app(fake_github: FakeGitHub, app_key: Path) -> App:
    """A fake App whose n-th installation token expires n hours after T0."""
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
    return App(InstallationTokens(credentials), granted)


def test_a_token_is_reused_until_the_margin_then_refreshed(app: App) -> None:
    tokens, granted = app.tokens, app.granted
    first = tokens.token(INSTALLATION, now=T0)
    expiry = T0 + timedelta(hours=1)
    just_before = expiry - REFRESH_MARGIN - timedelta(seconds=1)
    assert tokens.token(INSTALLATION, now=just_before) == first
    assert len(granted) == 1
    second = tokens.token(INSTALLATION, now=expiry - REFRESH_MARGIN)
    assert second != first
    assert len(granted) == 2
    assert tokens.token(INSTALLATION, now=expiry + timedelta(minutes=30)) == second


def test_a_client_is_kept_per_thread_until_its_token_is_replaced(app: App) -> None:
    tokens, granted = app.tokens, app.granted
    client = tokens.client(INSTALLATION, now=T0)
    assert tokens.client(INSTALLATION, now=T0) is client
    with ThreadPoolExecutor(1) as other:
        elsewhere: Github = other.submit(tokens.client, INSTALLATION, T0).result()
    assert elsewhere is not client  # a client's connection is not shared between threads
    assert len(granted) == 1  # the token is shared
    expiry = T0 + timedelta(hours=1)
    renewed = tokens.client(INSTALLATION, now=expiry - REFRESH_MARGIN)
    assert renewed is not client
    assert len(granted) == 2
    assert tokens.client(INSTALLATION, now=expiry) is renewed
