"""Fixtures shared by the Action's tests (tests/action) and the GitHub adapter's (tests/github):
GitHub's OpenAPI description (once per session) and a fake GitHub checked against it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import responses

from tests.action.contract import load_openapi, validate_calls
from tests.action.fake_github import FakeGitHub


@pytest.fixture(scope="session")
def openapi() -> Any:
    """GitHub's OpenAPI description, or None when ../shared is absent."""
    return load_openapi()


@pytest.fixture
def fake_github(openapi: Any) -> Iterator[FakeGitHub]:
    """A fake GitHub; after the test every exchange is validated against the description."""
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        fake = FakeGitHub(rsps)
        yield fake
        if openapi is not None:
            validate_calls(openapi, fake.calls)
