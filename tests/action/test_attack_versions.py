"""An approval is bound to the PR's own change (real git, the PyGithub adapter, the fake GitHub).

- `git merge -s ours main` after main gained a fix keeps the tree but reverts the fix: a new
  version, gate pending.
- A rebase onto a newer main that leaves the PR's own diff as it was keeps the approval.
- A change of indentation only (same `git patch-id --stable`) is a new version.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.action.fake_github import FakeGitHub
from tests.action.scenario import REPORT_V2, WRITER, Scenario, git

APPROVE = "/approve spec=4 comp=4 qual=4 ver=4 format=4"


@pytest.fixture
def scenario(tmp_path: Path, fake_github: FakeGitHub) -> Scenario:
    return Scenario(tmp_path, fake_github)


def _approved(scenario: Scenario) -> None:
    scenario.push(
        {"out/report.json": REPORT_V2, "src/count.py": "def count():\n    return 2\n"}, "Add"
    )
    assert scenario.pr_event("opened").code == 0
    assert scenario.comment(WRITER, APPROVE).code == 0
    assert _gate(scenario) == "success"


def _main_gains(scenario: Scenario, path: str, text: str) -> None:
    """A commit on main (pushed), which the PR's base then points at."""
    work = scenario.work
    git(work, "checkout", "--quiet", "main")
    (work / path).parent.mkdir(parents=True, exist_ok=True)
    (work / path).write_text(text)
    git(work, "add", "-A")
    git(work, "commit", "--quiet", "-m", f"Add {path}")
    git(work, "push", "--quiet", str(scenario.remote), "main")
    scenario.base_sha = git(work, "rev-parse", "HEAD")
    git(work, "checkout", "--quiet", "feature")


def _gate(scenario: Scenario) -> str:
    head = scenario.heads[-1]
    states = [s["state"] for s in scenario.fake.statuses if s["sha"] == head]
    return states[-1] if states else "none"


def _versions(scenario: Scenario) -> list[int]:
    return sorted({e["version"] for e in scenario.ledger_events()})


def test_a_merge_that_keeps_the_tree_but_reverts_main_is_a_new_version(scenario: Scenario) -> None:
    _approved(scenario)
    tree = git(scenario.work, "rev-parse", "HEAD^{tree}")
    _main_gains(scenario, "SECURITY_FIX.md", "the fix\n")
    git(scenario.work, "merge", "--quiet", "-s", "ours", "-m", "merge main", "main")
    assert git(scenario.work, "rev-parse", "HEAD^{tree}") == tree
    scenario.push_head()
    step = scenario.pr_event("synchronize")
    assert step.code == 0, step.log
    assert "new version v2" in step.log
    assert _gate(scenario) == "pending"
    assert _versions(scenario) == [1, 2]


def test_a_rebase_that_keeps_the_pr_own_diff_keeps_the_approval(scenario: Scenario) -> None:
    _approved(scenario)
    _main_gains(scenario, "docs/unrelated.md", "news\n")
    git(scenario.work, "rebase", "--quiet", "main")
    scenario.push_head()
    step = scenario.pr_event("synchronize")
    assert step.code == 0, step.log
    assert "v1 kept" in step.log
    assert _gate(scenario) == "success"
    assert _versions(scenario) == [1]


def test_a_change_of_indentation_only_is_a_new_version(scenario: Scenario) -> None:
    _approved(scenario)
    scenario.push({"src/count.py": "def count():\n    return 2\n\n    \n"}, "Whitespace")
    step = scenario.pr_event("synchronize")
    assert "new version v2" in step.log
    assert _gate(scenario) == "pending"
