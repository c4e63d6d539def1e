"""Secrets outside Actions; a placeholder key never destroys data (real git, fake GitHub)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.action.fake_github import FakeGitHub
from tests.action.scenario import REPORT_V2, TOKEN, WRITER, Scenario


class PlaceholderKey(Scenario):
    """A repository whose workflow passes `OPENAI_API_KEY=none`."""

    def env(self, event_name: str, path: Path) -> dict[str, str]:
        return {**super().env(event_name, path), "INPUT_OPENAI-API-KEY": "none"}


@pytest.fixture
def scenario(tmp_path: Path, fake_github: FakeGitHub) -> Scenario:
    return PlaceholderKey(tmp_path, fake_github)


def test_a_placeholder_key_is_reported_and_never_redacts_the_ledger(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    scenario.push({"out/report.json": REPORT_V2}, "Add")
    opened = scenario.pr_event("opened")
    assert opened.code == 0, opened.log
    assert "looks like a placeholder" in opened.log
    step = scenario.comment(WRITER, "/revise please say `none` of this is final")
    assert step.code == 0, step.log
    events = scenario.ledger_events()
    assert {e["actor_role"] for e in events} == {"none", "write"}
    assert any("none" in e.get("feedback", "") for e in events)
    assert "***" not in str(events)
    assert "::add-mask::" not in opened.log + step.log
    assert TOKEN not in opened.log + step.log
