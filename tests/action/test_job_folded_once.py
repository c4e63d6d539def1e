"""A run folds its job once: the shell folds the stored events, the handler's events fold onto
that state (each event of the job is applied once per run). A run that turns the gate green
reads the job again at the data branch's tip, where another run may have changed it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rubricate.bot import jobstate
from rubricate.ledger.event import Event
from tests.action.fake_github import FakeGitHub
from tests.action.scenario import Scenario, Step, pr_life


def test_every_step_of_a_pr_life_applies_each_job_event_once(
    tmp_path: Path, fake_github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    applied: list[Event] = []
    apply = jobstate._Folder.apply

    def counted(self: jobstate._Folder, event: Event) -> None:
        applied.append(event)
        apply(self, event)

    folds: dict[str, tuple[int, int]] = {}
    deliver = Scenario.deliver

    def measured(self: Scenario, name: str, *args: Any, **kwargs: Any) -> Step:
        applied.clear()
        step = deliver(self, name, *args, **kwargs)
        folds[name] = (len(applied), len(self.ledger_events()))
        return step

    monkeypatch.setattr(jobstate._Folder, "apply", counted)
    monkeypatch.setattr(Scenario, "deliver", measured)
    steps = pr_life(Scenario(tmp_path, fake_github))
    assert all(step.code == 0 for step in steps.values())
    assert {"pull_request opened", "comment /approve spec=3 comp=2 qual=2 ver=2 format=2"} <= set(
        folds
    )
    green = "comment /override the schema gap is tracked in #13 and ships next sprint"
    for name, (count, events) in folds.items():
        reads = 2 if name == green else 1
        assert count == reads * events, f"{name}: {count} events applied for a job of {events}"
