"""No stale green: a run that changes the ledger never leaves a green the ledger no longer holds.

Real git (one bare repository for the code and the data branch), the real PyGithub adapter and
the fake GitHub checked against the OpenAPI description.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rubricate.github.adapter import GitHubAdapter
from tests.action.fake_github import FakeGitHub
from tests.action.scenario import MAINTAINER, OVERRIDE, WRITER, Scenario

GATE = "rubricate/approval"


@pytest.fixture
def scenario(tmp_path: Path, fake_github: FakeGitHub) -> Scenario:
    return Scenario(tmp_path, fake_github)


def approved(scenario: Scenario) -> str:
    """A PR whose head has a green gate (an approval below the bar, then an override)."""
    head = scenario.push({"out/report.json": '{"widgets": ["a"], "total": 1}\n'}, "Add the report")
    assert scenario.pr_event("opened").code == 0
    assert scenario.comment(WRITER, "/approve spec=3 comp=2 qual=2 ver=2 format=2").code == 0
    assert scenario.comment(MAINTAINER, OVERRIDE).code == 0
    assert gate(scenario, head) == "success"
    return head


def gate(scenario: Scenario, sha: str) -> str | None:
    """The gate's state on a commit as GitHub shows it: the newest status in its context."""
    states = [
        s["state"] for s in scenario.fake.statuses if s["sha"] == sha and s["context"] == GATE
    ]
    return states[-1] if states else None


def kinds(scenario: Scenario) -> list[str]:
    return [e["kind"] for e in scenario.ledger_events()]


def test_a_revise_whose_status_write_fails_leaves_no_stale_green(scenario: Scenario) -> None:
    head = approved(scenario)
    scenario.fake.failures[f"POST /repos/octo/widgets/statuses/{head}"] = 1
    failed = scenario.comment(WRITER, "/revise please document the report format")
    assert failed.code == 1
    # The gate went down before the ledger moved; it failed, so the ledger did not move.
    assert gate(scenario, head) == "success"
    assert "revision_requested" not in kinds(scenario)
    comments = [c for c in scenario.fake.comments.values() if "/revise" in c["body"]]
    comment_id = comments[-1]["id"]
    again = scenario.comment(WRITER, comments[-1]["body"], comment_id=comment_id)
    assert again.code == 0, again.log
    assert "revision_requested" in kinds(scenario)
    assert gate(scenario, head) != "success"


def test_the_gate_goes_down_before_the_ledger_changes(scenario: Scenario) -> None:
    head = approved(scenario)
    step = scenario.comment(WRITER, "/revise please document the report format")
    assert step.code == 0, step.log
    statuses = [c for c in step.calls if c.startswith("POST") and "/statuses/" in c]
    assert statuses == [f"POST /repos/octo/widgets/statuses/{head}"]
    assert step.log.index(f"status {GATE} = ") < step.log.index("ledger: 1 added")
    assert gate(scenario, head) == "pending"


def test_a_green_written_after_a_racing_revise_is_set_again_from_the_tip(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    head = scenario.push({"out/report.json": '{"widgets": ["a"], "total": 1}\n'}, "Add the report")
    assert scenario.pr_event("opened").code == 0
    assert scenario.comment(WRITER, "/approve spec=3 comp=2 qual=2 ver=2 format=2").code == 0
    real = GitHubAdapter.set_status
    raced: list[int] = []

    def set_status(self: GitHubAdapter, sha: str, state: str, *args: Any) -> None:
        # The override's run has committed its event; before its green lands, a /revise runs
        # from start to end (its own commit, its own status).
        if state == "success" and not raced:
            raced.append(scenario.comment(WRITER, "/revise the README needs the format").code)
        real(self, sha, state, *args)

    monkeypatch.setattr(GitHubAdapter, "set_status", set_status)
    step = scenario.comment(MAINTAINER, OVERRIDE)
    assert raced == [0]
    assert step.code == 0, step.log
    assert kinds(scenario)[-2:] == ["approved", "revision_requested"]
    assert "the ledger moved on" in step.log
    assert gate(scenario, head) == "pending"
