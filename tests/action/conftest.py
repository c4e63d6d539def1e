"""Fixtures of whole runs: a PR opened on real repositories and the fake GitHub."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.action.fake_github import FakeGitHub
from tests.action.scenario import Scenario


@pytest.fixture
def opened(tmp_path: Path, fake_github: FakeGitHub) -> Scenario:
    """A PR opened on real repositories, its first version recorded."""
    scenario = Scenario(tmp_path, fake_github)
    scenario.push({"out/report.json": '{"widgets": ["a"], "total": 1}\n'}, "Add the report")
    assert scenario.pr_event("opened").code == 0
    return scenario
