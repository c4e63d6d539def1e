"""Fixtures shared by the Action's tests (tests/action) and the GitHub adapter's (tests/github):
GitHub's OpenAPI description (once per session) and a fake GitHub checked against it; and the
Hypothesis profile every property test runs under."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import responses
from hypothesis import HealthCheck, settings

from tests.action.contract import load_openapi, validate_calls
from tests.action.fake_github import FakeGitHub

# No timed assertions in unit tests: Hypothesis's checks that depend on the machine's speed (a
# deadline per example, "data generation is too slow") are off for every property test.
settings.register_profile("rubricate", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("rubricate")


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
