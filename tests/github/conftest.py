"""Fixtures: the OpenAPI description (once per session) and a fake GitHub checked against it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import responses

from tests.github.contract import load_openapi, validate_calls
from tests.github.fake_github import FakeGitHub
from tests.github.scenario import Scenario


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


@pytest.fixture
def opened(tmp_path: Path, fake_github: FakeGitHub) -> Scenario:
    """A PR opened on real repositories, its first version recorded."""
    scenario = Scenario(tmp_path, fake_github)
    scenario.push({"out/report.json": '{"widgets": ["a"], "total": 1}\n'}, "Add the report")
    assert scenario.pr_event("opened").code == 0
    return scenario
