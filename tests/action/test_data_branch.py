"""The data branch as a run reads it: a job file that is not one fails the run with the
file's reason, as a broken data branch (exit 1), wherever the run reads it: a PR's own run,
and a merge queue's group."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.action.fake_github import FakeGitHub
from tests.action.queue_groups import METHODS, build_queue, deliver
from tests.action.scenario import PR, Scenario
from tests.action.test_attack_responses import corrupt_job_file
from tests.action.test_merge_queue import pr_life_until_override


@pytest.fixture
def scenario(tmp_path: Path, fake_github: FakeGitHub) -> Scenario:
    return Scenario(tmp_path, fake_github)


def test_a_corrupt_job_file_fails_a_merge_group_run_as_a_broken_data_branch(
    scenario: Scenario,
) -> None:
    pr_life_until_override(scenario)
    corrupt_job_file(scenario)
    (group,) = build_queue(scenario, METHODS[0], [(PR, scenario.heads[-1])])
    step = deliver(scenario, group)
    assert step.code == 1, step.log
    assert "Traceback" not in step.log
    assert f"jobs/{PR}.json: not a valid job file: not JSON (line 1 column 3" in step.log
    assert "configuration error" not in step.log
