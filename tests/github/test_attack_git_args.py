"""SHAs and ref names from a payload or the view state never reach git as options.

Real git repositories (a local bare repository is the remote), the real PyGithub adapter and
the fake GitHub.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rubricate.bot.view_state import decode_views
from rubricate.errors import RubricateError
from rubricate.gitio.workspace import fetch_branch, fetch_commits
from rubricate.gitnames import is_sha, ref_problem
from tests.github.fake_github import FakeGitHub
from tests.github.payloads import pull_request_event
from tests.github.scenario import AUTHOR, PR, REPORT_V2, START, Scenario, git


@pytest.fixture
def scenario(tmp_path: Path, fake_github: FakeGitHub) -> Scenario:
    return Scenario(tmp_path, fake_github)


def test_an_option_as_head_sha_is_a_clear_error_and_never_runs(scenario: Scenario) -> None:
    scenario.push({"out/report.json": REPORT_V2}, "Add the report")
    pwned = scenario.root / "pwned"
    payload = pull_request_event(
        "opened",
        number=PR,
        author=AUTHOR,
        head_sha=f"--upload-pack=touch {pwned}",
        base_sha=scenario.base_sha,
        created=START,
        at=scenario.tick(),
    )
    step = scenario.deliver("pull_request opened", "pull_request_target", payload)
    assert step.code == 2
    assert "`head.sha` is not a full commit SHA" in step.log
    assert "Traceback" not in step.log
    assert not pwned.exists()
    assert not [s for s in scenario.fake.statuses if s["state"] == "success"]


def test_git_io_refuses_an_option_as_sha_or_branch(scenario: Scenario, tmp_path: Path) -> None:
    pwned = tmp_path / "pwned"
    evil = f"--upload-pack=touch {pwned}"
    dest = tmp_path / "fetched.git"
    with pytest.raises(RubricateError, match="head SHA is not a full commit SHA"):
        fetch_commits(str(scenario.remote), scenario.base_sha, evil, dest, token=None)
    with pytest.raises(RubricateError, match="branch is not a valid ref name"):
        fetch_branch(str(scenario.remote), evil, dest, token=None)
    assert not pwned.exists()
    head = scenario.push({"out/report.json": REPORT_V2}, "Add the report")
    assert fetch_commits(str(scenario.remote), scenario.base_sha, head, dest, token=None)
    assert fetch_branch(str(scenario.remote), "main", dest, token=None) == scenario.base_sha
    assert git(tmp_path, "--git-dir", str(dest), "cat-file", "-t", head) == "commit"


def test_a_view_state_with_an_option_as_base_sha_drops_only_the_pull_entry() -> None:
    good = "a" * 40
    state = {
        "pr": 7,
        "answered": ["comment:1"],
        "pull": {"base_sha": "--upload-pack=touch x", "base_ref": "main", "head_sha": good},
    }
    decoded = decode_views(json.dumps(state).encode(), 7)
    assert decoded.pull is None
    assert decoded.answered == ["comment:1"]
    state["pull"] = {"base_sha": good, "base_ref": "main", "head_sha": "b" * 64}
    assert decode_views(json.dumps(state).encode(), 7).pull is not None


@pytest.mark.parametrize(
    "ref", ["-x", "a..b", "a b", "a~1", "a^", "a:b", "a?", "a*", "a[", "a\\b", "a\x01", ".a", "a/"]
)
def test_unsafe_ref_names_are_refused(ref: str) -> None:
    assert ref_problem(ref) is not None


def test_safe_names_and_shas_pass() -> None:
    assert ref_problem("release/1.2") is None
    assert all(is_sha(sha) for sha in ("0" * 40, "f" * 64))
    assert not any(is_sha(sha) for sha in ("A" * 40, "0" * 39, "-" + "0" * 39))
