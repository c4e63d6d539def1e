"""Merge queues: a `merge_group` `checks_requested` run on real git and the fake GitHub.

The group commits are built the way GitHub's queue builds them (a merge commit per PR on the
base, pushed to `refs/heads/gh-readonly-queue/<base>/pr-<N>-<head sha>`) and the payload has the
shape of GitHub's `merge_group` webhook (checked against the OpenAPI description's
`merge-group-checks-requested` schema: required fields at each level).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rubricate.bot.events import Ignored, MergeGroupEvent
from rubricate.bot.merge_queue import QueueCommit, group_prs, parse_merge_group
from rubricate.bot.payload import PayloadError
from tests.github.contract import OPENAPI_PATH
from tests.github.fake_github import FakeGitHub
from tests.github.payloads import REPO, _repository, _user
from tests.github.scenario import MAINTAINER, OVERRIDE, PR, WRITER, Scenario, git


@pytest.fixture
def scenario(tmp_path: Path, fake_github: FakeGitHub) -> Scenario:
    return Scenario(tmp_path, fake_github)


def merge_group_payload(
    head_sha: str, tree: str, base_sha: str, pr: int, pr_head: str
) -> dict[str, Any]:
    """A `merge_group` `checks_requested` payload as GitHub sends it."""
    person = {"name": "GitHub", "email": "noreply@github.com"}
    return {
        "action": "checks_requested",
        "merge_group": {
            "head_sha": head_sha,
            "head_ref": f"refs/heads/gh-readonly-queue/main/pr-{pr}-{pr_head}",
            "base_sha": base_sha,
            "base_ref": "refs/heads/main",
            "head_commit": {
                "id": head_sha,
                "tree_id": tree,
                "message": f"Merge pull request #{pr} from octo/feature",
                "timestamp": "2026-03-03T09:00:00Z",
                "author": person,
                "committer": person,
            },
        },
        "repository": _repository(),
        "sender": _user(MAINTAINER),
    }


def queue_group(scenario: Scenario, merges: list[tuple[int, str]]) -> tuple[str, str]:
    """Merge commits of these (PR, head) pairs on main, pushed as the last PR's queue branch."""
    work = scenario.work
    git(work, "checkout", "--quiet", "--detach", scenario.base_sha)
    for number, head in merges:
        git(
            work,
            "merge",
            "--quiet",
            "--no-ff",
            "-m",
            f"Merge pull request #{number} from octo/f{number}\n\nx",
            head,
        )
    sha = git(work, "rev-parse", "HEAD")
    last, last_head = merges[-1]
    git(
        work,
        "push",
        "--quiet",
        "--force",
        str(scenario.remote),
        f"HEAD:refs/heads/gh-readonly-queue/main/pr-{last}-{last_head}",
    )
    git(work, "checkout", "--quiet", "feature")
    return sha, git(work, "rev-parse", f"{sha}^{{tree}}")


def deliver_group(scenario: Scenario, merges: list[tuple[int, str]]) -> tuple[Any, str]:
    sha, tree = queue_group(scenario, merges)
    last, last_head = merges[-1]
    payload = merge_group_payload(sha, tree, scenario.base_sha, last, last_head)
    return scenario.deliver("merge_group", "merge_group", payload), sha


def test_a_group_of_one_approved_pr_is_green_with_one_call_and_no_event(scenario: Scenario) -> None:
    for name, step in pr_life_until_override(scenario).items():
        assert step.code == 0, name
    events_before = scenario.ledger_events()
    step, sha = deliver_group(scenario, [(PR, scenario.heads[-1])])
    assert step.code == 0, step.log
    assert step.calls == [f"POST /repos/octo/widgets/statuses/{sha}"]
    status = scenario.fake.statuses[-1]
    assert (status["context"], status["state"]) == ("rubricate/approval", "success")
    assert f"#{PR}" in status["description"]
    assert scenario.ledger_events() == events_before


def test_a_pr_that_is_not_approved_fails_the_group_naming_it(scenario: Scenario) -> None:
    scenario.push({"out/report.json": "{}\n"}, "Add the report")
    assert scenario.pr_event("opened").code == 0
    step, sha = deliver_group(scenario, [(PR, scenario.heads[-1])])
    assert step.code == 0, step.log
    assert len(step.calls) <= 2
    status = scenario.fake.statuses[-1]
    assert (status["sha"], status["state"]) == (sha, "failure")
    assert f"#{PR}: v1 is not approved" in status["description"]


def test_every_pr_of_a_group_needs_a_green_gate(scenario: Scenario) -> None:
    pr_life_until_override(scenario)
    git(scenario.work, "checkout", "--quiet", "-b", "other", scenario.base_sha)
    (scenario.work / "other.txt").write_text("a change no job in the ledger knows\n")
    git(scenario.work, "add", "-A")
    git(scenario.work, "commit", "--quiet", "-m", "Other")
    other = git(scenario.work, "rev-parse", "HEAD")
    git(scenario.work, "checkout", "--quiet", "feature")
    step, sha = deliver_group(scenario, [(8, other), (PR, scenario.heads[-1])])
    assert step.code == 0, step.log
    assert len(step.calls) <= 2
    status = scenario.fake.statuses[-1]
    assert (status["sha"], status["state"]) == (sha, "failure")
    assert "#8: not in the ledger" in status["description"]
    assert f"#{PR}:" not in status["description"]


def test_an_approval_of_an_older_change_does_not_count(scenario: Scenario) -> None:
    pr_life_until_override(scenario)
    scenario.push({"out/report.json": '{"widgets": [], "total": 0}\n'}, "Change the report")
    assert scenario.pr_event("synchronize").code == 0
    deliver_group(scenario, [(PR, scenario.heads[0])])
    status = scenario.fake.statuses[-1]
    assert status["state"] == "failure"
    assert "v1 is not the current change (v2)" in status["description"]
    deliver_group(scenario, [(PR, scenario.heads[1])])
    assert scenario.fake.statuses[-1]["state"] == "failure"
    assert "#7: v2 is not approved" in scenario.fake.statuses[-1]["description"]


def pr_life_until_override(scenario: Scenario) -> dict[str, Any]:
    """The scenario's PR life without its merge: v3 approved by override."""
    scenario.push({"out/report.json": '{"widgets": ["a"], "total": 1}\n'}, "Add the report")
    steps = {"opened": scenario.pr_event("opened")}
    steps["approve"] = scenario.comment(WRITER, "/approve spec=3 comp=2 qual=2 ver=2 format=2")
    steps["override"] = scenario.comment(MAINTAINER, OVERRIDE)
    return steps


def test_the_payload_has_the_shape_of_github_merge_group_webhook() -> None:
    if not OPENAPI_PATH.is_file():
        pytest.skip("the OpenAPI description is not available")
    spec = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))
    hook = spec["x-webhooks"]["merge-group-checks-requested"]["post"]
    schema = _resolve(spec, hook["requestBody"]["content"]["application/json"]["schema"])
    payload = merge_group_payload("a" * 40, "b" * 40, "c" * 40, 3, "d" * 40)
    assert set(schema["required"]) <= set(payload)
    group = _resolve(spec, schema["properties"]["merge_group"])
    assert set(group["required"]) <= set(payload["merge_group"])
    commit = _resolve(spec, group["properties"]["head_commit"])
    assert set(commit["required"]) <= set(payload["merge_group"]["head_commit"])
    assert isinstance(parse_merge_group(payload), MergeGroupEvent)


def _resolve(spec: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        found: Any = spec
        for part in node["$ref"].split("/")[1:]:
            found = found[part]
        node = found
    return node


def test_a_destroyed_group_and_bad_queue_refs() -> None:
    payload = merge_group_payload("a" * 40, "b" * 40, "c" * 40, 3, "d" * 40)
    assert isinstance(parse_merge_group({**payload, "action": "destroyed"}), Ignored)
    for head_ref in (
        "refs/heads/main",
        "refs/heads/gh-readonly-queue/main/pr-x-" + "d" * 40,
        "refs/heads/gh-readonly-queue/main/pr-3-" + "--upload-pack=touch x",
    ):
        bad = {**payload, "merge_group": {**payload["merge_group"], "head_ref": head_ref}}
        with pytest.raises(PayloadError):
            parse_merge_group(bad)
    other_base = {
        **payload,
        "merge_group": {**payload["merge_group"], "base_ref": "refs/heads/dev"},
    }
    with pytest.raises(PayloadError):
        parse_merge_group(other_base)
    bad_sha = {**payload, "merge_group": {**payload["merge_group"], "head_sha": "--help"}}
    with pytest.raises(PayloadError):
        parse_merge_group(bad_sha)


def test_group_prs_from_merge_and_squash_commits() -> None:
    event = MergeGroupEvent(REPO, "a" * 40, "c" * 40, "main", 9, "9" * 40)
    commits = [
        QueueCommit("1" * 40, ("c" * 40, "5" * 40), "Merge pull request #5 from octo/five"),
        QueueCommit("2" * 40, ("1" * 40,), "Count the widgets (#6)"),
        QueueCommit("3" * 40, ("2" * 40,), "a rebased commit naming no PR"),
        QueueCommit("a" * 40, ("3" * 40, "9" * 40), "Merge pull request #9 from octo/nine"),
    ]
    assert group_prs(event, commits) == {5: "5" * 40, 6: None, 9: "9" * 40}
    assert list(group_prs(event, [])) == [9]


RULESETS = Path(__file__).resolve().parents[2] / "examples" / "rulesets"


@pytest.mark.parametrize("name", ["data-branch.json", "default-branch.json"])
def test_the_documented_rulesets_are_valid_rest_requests(openapi: Any, name: str) -> None:
    if openapi is None:
        pytest.skip("the OpenAPI description is not available")
    from openapi_core.testing import MockRequest

    body = (RULESETS / name).read_bytes()
    json.loads(body)
    request = MockRequest(
        "https://api.github.com",
        "post",
        "/repos/octo/widgets/rulesets",
        data=body,
        content_type="application/json",
    )
    openapi.validate_request(request)


def test_init_prints_the_data_branch_ruleset_and_the_template_subscribes_to_merge_group() -> None:
    from rubricate.cli.init_steps import NEXT_STEPS

    ruleset = (RULESETS / "data-branch.json").read_text()
    printed = "\n".join(line.removeprefix("     ") for line in NEXT_STEPS.splitlines())
    assert ruleset.strip() in printed
    assert "gh api --method POST repos/OWNER/REPO/rulesets --input ruleset.json" in NEXT_STEPS
    workflow = (RULESETS.parent / "workflows" / "rubricate.yml").read_text()
    assert "  merge_group:\n    types: [checks_requested]\n" in workflow
    assert "github.event_name == 'merge_group'" in workflow
