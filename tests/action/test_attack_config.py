"""Config from the default branch, retargets, and a data branch that is not a code branch.

Real git repositories, the real PyGithub adapter and the fake GitHub (OpenAPI-validated).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.action.fake_github import FakeGitHub
from tests.action.payloads import pull_request_event
from tests.action.scenario import AUTHOR, CONFIG, PR, REPORT_V2, START, WRITER, Scenario, Step, git

LENIENT = "rubric: rubrics/lenient.yml\ndata_branch: rubricate-data\n"
LENIENT_RUBRIC = """\
id: lenient
version: "1"
scale: {min: 1, max: 5}
pass: {min_total: 1.0, min_each: 1}
criteria:
  - {id: spec_adherence, weight: 0.30, outcome: anything}
  - {id: completeness, weight: 0.20, outcome: anything}
  - {id: quality, weight: 0.25, outcome: anything}
  - {id: verifiability, weight: 0.15, outcome: anything}
  - {id: format_correctness, weight: 0.10, outcome: anything}
"""
LOW = "/approve spec=2 comp=2 qual=2 ver=2 format=2"


@pytest.fixture
def scenario(tmp_path: Path, fake_github: FakeGitHub) -> Scenario:
    return Scenario(tmp_path, fake_github)


def _branch(scenario: Scenario, name: str, files: dict[str, str], start: str = "main") -> str:
    """A branch of the repository (pushed) holding these files on top of `start`."""
    work = scenario.work
    git(work, "checkout", "--quiet", "-b", name, start)
    for path, text in files.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(text)
    git(work, "add", "-A")
    git(work, "commit", "--quiet", "-m", f"rules of {name}")
    git(work, "push", "--quiet", str(scenario.remote), name)
    sha = git(work, "rev-parse", "HEAD")
    git(work, "checkout", "--quiet", "feature")
    return sha


def _pr(
    scenario: Scenario,
    action: str,
    base: str,
    base_sha: str,
    changes: Any = None,
    *,
    draft: bool = False,
) -> Step:
    payload = pull_request_event(
        action,
        number=PR,
        author=AUTHOR,
        head_sha=scenario.heads[-1],
        base_sha=base_sha,
        created=START,
        at=scenario.tick(),
    )
    payload["pull_request"]["base"]["ref"] = base
    payload["pull_request"]["draft"] = draft
    if changes is not None:
        payload["changes"] = changes
    return scenario.deliver(f"pull_request {action}", "pull_request_target", payload)


def _gate(scenario: Scenario) -> str:
    states = [s["state"] for s in scenario.fake.statuses if s["sha"] == scenario.heads[-1]]
    return states[-1] if states else "none"


def _rubrics(scenario: Scenario) -> set[str]:
    return {e["rubric"]["id"] for e in scenario.ledger_events() if "rubric" in e}


def test_a_pr_into_a_lenient_branch_is_graded_by_the_default_branch_config(
    scenario: Scenario,
) -> None:
    lenient = _branch(
        scenario,
        "lenient",
        {".github/rubricate.yml": LENIENT, "rubrics/lenient.yml": LENIENT_RUBRIC},
    )
    scenario.push({"out/report.json": REPORT_V2}, "Add")
    step = _pr(scenario, "opened", "lenient", lenient)
    assert step.code == 0, step.log
    assert "config read on main" in step.log
    assert scenario.comment(WRITER, LOW).code == 0
    assert _gate(scenario) != "success"
    assert _rubrics(scenario) == {"agora-v3"}


def _lenient_release(scenario: Scenario) -> tuple[str, str]:
    """Main's config gives `release-*` a lenient rubric; `release-1` branches from it; the PR
    (pushed) starts from main. The two bases' commits."""
    rules = CONFIG + "branches:\n  release-*: {rubric: rubrics/lenient.yml}\n"
    main = _branch(
        scenario, "rules", {".github/rubricate.yml": rules, "rubrics/lenient.yml": LENIENT_RUBRIC}
    )
    git(scenario.work, "push", "--quiet", str(scenario.remote), "rules:main")
    release = _branch(scenario, "release-1", {"CHANGES.md": "1.0\n"}, start="rules")
    git(scenario.work, "rebase", "--quiet", "rules")
    scenario.push({"out/report.json": REPORT_V2}, "Add")
    return main, release


def test_a_retarget_is_a_new_version_with_the_new_base_rules(scenario: Scenario) -> None:
    main, release = _lenient_release(scenario)
    assert _pr(scenario, "opened", "release-1", release).code == 0
    assert scenario.comment(WRITER, LOW).code == 0
    assert _gate(scenario) == "success"
    assert _rubrics(scenario) == {"lenient"}
    step = _pr(scenario, "edited", "main", main, {"base": {"ref": {"from": "release-1"}}})
    assert step.code == 0, step.log
    assert "retargeted to main: new version v2, gate pending" in step.log
    assert _gate(scenario) == "pending"
    v2 = [e for e in scenario.ledger_events() if e["version"] == 2]
    assert {e["rubric"]["id"] for e in v2} == {"agora-v3"}
    step = scenario.comment(WRITER, LOW)
    assert _gate(scenario) == "failure"


def test_an_edit_of_the_title_only_is_ignored(scenario: Scenario) -> None:
    scenario.push({"out/report.json": REPORT_V2}, "Add")
    step = _pr(scenario, "edited", "main", scenario.base_sha, {"title": {"from": "old"}})
    assert step.code == 0
    assert step.calls == []
    assert "without a change of base" in step.log


def test_a_data_branch_that_is_the_default_branch_is_refused(scenario: Scenario) -> None:
    main = _branch(scenario, "rules", {".github/rubricate.yml": CONFIG + "data_branch: main\n"})
    git(scenario.work, "push", "--quiet", str(scenario.remote), "rules:main")
    scenario.push({"out/report.json": REPORT_V2}, "Add")
    step = _pr(scenario, "opened", "main", main)
    assert step.code != 0
    assert re.search(r"data_branch 'main' is the default branch", step.log)
    assert scenario.data_file("reputation.json") is None
    main_log = git(scenario.root, "--git-dir", str(scenario.remote), "log", "--format=%s", "main")
    assert "ledger event" not in main_log


@pytest.mark.parametrize("submitted", [True, False])
def test_a_draft_retargeted_to_main_loses_the_green_of_its_old_base(
    scenario: Scenario, submitted: bool
) -> None:
    """Approved under release's lenient rules, converted to a draft, moved to main, marked ready:
    the move is a retarget all the same (a new version under main's rules, gate pending). A
    draft never submitted records nothing when it moves: it is first scored when ready (its
    head's gate is pending all the same: a retarget's run lowers it before it reads anything)."""
    main, release = _lenient_release(scenario)
    if submitted:
        assert _pr(scenario, "opened", "release-1", release).code == 0
        assert scenario.comment(WRITER, LOW).code == 0
        assert _gate(scenario) == "success"
    moved = {"base": {"ref": {"from": "release-1"}}}
    step = _pr(scenario, "edited", "main", main, moved, draft=True)
    assert step.code == 0, step.log
    assert _gate(scenario) == "pending"
    assert ("retargeted to main: new version v2" in step.log) is submitted
    assert _pr(scenario, "ready_for_review", "main", main).code == 0
    assert _gate(scenario) == "pending"
    moved_versions = [e for e in scenario.ledger_events() if e["version"] > int(submitted)]
    assert moved_versions
    assert {e["rubric"]["id"] for e in moved_versions} == {"agora-v3"}


def test_a_retarget_whose_run_fails_does_not_keep_the_old_base_green(scenario: Scenario) -> None:
    """Approved under release's rules; the run of the move to main fails before it sets any
    status (here the repository cannot be fetched): the head's gate is set to failure, never
    left at the green the old base's rules gave; a re-run sets the new version's gate."""
    main, release = _lenient_release(scenario)
    assert _pr(scenario, "opened", "release-1", release).code == 0
    assert scenario.comment(WRITER, LOW).code == 0
    assert _gate(scenario) == "success"
    payload = scenario.root / f"event-{len(scenario.steps)}.json"
    away = scenario.remote.rename(scenario.root / "away.git")
    step = _pr(scenario, "edited", "main", main, {"base": {"ref": {"from": "release-1"}}})
    assert step.code == 1, step.log
    assert _gate(scenario) == "failure"
    away.rename(scenario.remote)
    again = scenario.deliver("re-run", "pull_request_target", json.loads(payload.read_text()))
    assert again.code == 0, again.log
    assert _gate(scenario) == "pending"
