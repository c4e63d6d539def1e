"""A comment's run that fails on a bad config reports the failing check on the PR's head."""

from __future__ import annotations

from pathlib import Path

from tests.action.fake_github import FakeGitHub, pull
from tests.action.payloads import REPO
from tests.action.scenario import AUTHOR, PR, WRITER, Scenario

REPORT = '{"widgets": ["a"], "total": 1}\n'


def test_a_comment_run_with_a_bad_config_fails_the_check_on_the_pr_head(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    scenario = Scenario(tmp_path, fake_github)
    bad_base = scenario.break_config(push=True)
    head = scenario.push({"out/report.json": REPORT}, "Add the report")
    fake_github.pulls[PR] = pull(REPO, PR, author=AUTHOR, head_sha=head, base_sha=bad_base)
    step = scenario.comment(WRITER, "/score spec=4")
    assert step.code == 2
    check = list(fake_github.check_runs.values())[-1]
    assert (check["conclusion"], check["head_sha"]) == ("failure", head)
    assert "modle" in check["output"]["summary"]
