"""Merge queues: `merge_group` `checks_requested` runs on real git and the fake GitHub.

The groups are built the way GitHub's queue builds them, with each merge method
(`tests.action.queue_groups`): the queue branch names the commit an entry was built on (the base
tip, or the previous entry's group commit), never a PR's head. Every commit from the base to the
group's head must be an approved PR's change, else the group fails closed naming why.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rubricate.bot.events import Ignored, MergeGroupEvent
from rubricate.bot.merge_queue import parse_merge_group
from rubricate.bot.payload import PayloadError
from tests.action.contract import OPENAPI_PATH
from tests.action.fake_github import FakeGitHub
from tests.action.queue_groups import (
    METHODS,
    Method,
    build_queue,
    comment_on,
    deliver,
    merge_group_payload,
    other_pr,
)
from tests.action.scenario import MAINTAINER, OVERRIDE, PR, WRITER, Scenario, git

SHARED_WEBHOOKS = Path(__file__).resolve().parents[3] / "shared" / "github" / "webhooks"
OTHER = 8
APPROVE = "/approve spec=3 comp=2 qual=2 ver=2 format=2"


@pytest.fixture
def scenario(tmp_path: Path, fake_github: FakeGitHub) -> Scenario:
    return Scenario(tmp_path, fake_github)


def pr_life_until_override(scenario: Scenario) -> dict[str, Any]:
    """The scenario's PR life without its merge: v1 approved by override."""
    scenario.push({"out/report.json": '{"widgets": ["a"], "total": 1}\n'}, "Add the report")
    steps = {"opened": scenario.pr_event("opened")}
    steps["approve"] = scenario.comment(WRITER, APPROVE)
    steps["override"] = scenario.comment(MAINTAINER, OVERRIDE)
    return steps


def approved_other(scenario: Scenario) -> str:
    """PR #8 opened and approved (by override), its one commit adding `other.txt`."""
    head = other_pr(scenario, OTHER, "other.txt", "the other PR's change\n")
    comment_on(scenario, OTHER, WRITER, APPROVE)
    comment_on(scenario, OTHER, MAINTAINER, OVERRIDE)
    return head


def last_status(scenario: Scenario) -> dict[str, Any]:
    return scenario.fake.statuses[-1]


@pytest.mark.parametrize("method", METHODS)
def test_a_group_of_one_approved_pr_is_green_with_one_call_and_no_event(
    scenario: Scenario, method: Method
) -> None:
    for name, step in pr_life_until_override(scenario).items():
        assert step.code == 0, name
    events_before = scenario.ledger_events()
    (group,) = build_queue(scenario, method, [(PR, scenario.heads[-1])])
    assert group.built_on == scenario.base_sha != scenario.heads[-1]
    step = deliver(scenario, group)
    assert step.code == 0, step.log
    assert step.calls == [f"POST /repos/octo/widgets/statuses/{group.head_sha}"]
    status = last_status(scenario)
    assert (status["context"], status["state"]) == ("rubricate/approval", "success")
    assert status["description"] == f"merge queue: #{PR} approved"
    assert scenario.ledger_events() == events_before


@pytest.mark.parametrize("method", METHODS)
def test_two_approved_prs_make_a_green_group_built_on_the_previous_group(
    scenario: Scenario, method: Method
) -> None:
    pr_life_until_override(scenario)
    other = approved_other(scenario)
    first, second = build_queue(scenario, method, [(OTHER, other), (PR, scenario.heads[-1])])
    assert second.built_on == first.head_sha
    assert second.built_on not in (other, *scenario.heads)
    step = deliver(scenario, second)
    assert step.code == 0, step.log
    status = last_status(scenario)
    assert (status["sha"], status["state"]) == (second.head_sha, "success"), status
    assert status["description"] == f"merge queue: #{OTHER}, #{PR} approved"


@pytest.mark.parametrize("method", METHODS)
def test_an_unapproved_pr_ahead_of_an_approved_one_fails_the_group_naming_it(
    scenario: Scenario, method: Method
) -> None:
    pr_life_until_override(scenario)
    other = other_pr(scenario, OTHER, "other.txt", "never approved\n")
    _, second = build_queue(scenario, method, [(OTHER, other), (PR, scenario.heads[-1])])
    step = deliver(scenario, second)
    assert step.code == 0, step.log
    status = last_status(scenario)
    assert (status["sha"], status["state"]) == (second.head_sha, "failure")
    assert status["description"] == f"merge queue: #{OTHER}: v1 is not approved"


def test_a_rebased_commit_that_no_queued_entry_accounts_for_fails_closed(
    scenario: Scenario,
) -> None:
    pr_life_until_override(scenario)
    other = other_pr(scenario, OTHER, "other.txt", "queued, its branch gone\n")
    _, second = build_queue(
        scenario, "rebase", [(OTHER, other), (PR, scenario.heads[-1])], push=(PR,)
    )
    deliver(scenario, second)
    status = last_status(scenario)
    assert status["state"] == "failure"
    assert "names no PR and ends no queued entry" in status["description"]
    assert other[:12] not in status["description"]  # the rebased commit, not the PR's head


@pytest.mark.parametrize("method", METHODS)
def test_an_entry_with_more_than_the_approved_change_fails_closed(
    scenario: Scenario, method: Method
) -> None:
    pr_life_until_override(scenario)
    (group,) = build_queue(scenario, method, [(PR, scenario.heads[-1])])
    work = scenario.work
    git(work, "checkout", "--quiet", "--detach", group.head_sha)
    (work / "smuggled.txt").write_text("not in the approved change\n")
    git(work, "add", "-A")
    git(work, "commit", "--quiet", "--amend", "--no-edit")
    sha = git(work, "rev-parse", "HEAD")
    git(work, "push", "--quiet", "--force", str(scenario.remote), f"HEAD:{group.ref}")
    git(work, "checkout", "--quiet", "feature")
    tree = git(work, "rev-parse", f"{sha}^{{tree}}")
    payload = merge_group_payload(sha, tree, scenario.base_sha, PR, group.built_on)
    assert scenario.deliver("merge_group", "merge_group", payload).code == 0
    status = last_status(scenario)
    assert status["state"] == "failure"
    assert f"#{PR}: commit {sha[:12]}" in status["description"]
    assert "does not hold the approved change v1" in status["description"]


def test_a_pr_that_is_not_approved_fails_the_group_naming_it(scenario: Scenario) -> None:
    scenario.push({"out/report.json": "{}\n"}, "Add the report")
    assert scenario.pr_event("opened").code == 0
    (group,) = build_queue(scenario, "merge", [(PR, scenario.heads[-1])])
    step = deliver(scenario, group)
    assert step.code == 0, step.log
    assert len(step.calls) <= 2
    status = last_status(scenario)
    assert (status["sha"], status["state"]) == (group.head_sha, "failure")
    assert f"#{PR}: v1 is not approved" in status["description"]


def test_every_pr_of_a_group_needs_a_green_gate(scenario: Scenario) -> None:
    pr_life_until_override(scenario)
    git(scenario.work, "checkout", "--quiet", "-b", "other", scenario.base_sha)
    (scenario.work / "other.txt").write_text("a change no job in the ledger knows\n")
    git(scenario.work, "add", "-A")
    git(scenario.work, "commit", "--quiet", "-m", "Other")
    other = git(scenario.work, "rev-parse", "HEAD")
    git(scenario.work, "checkout", "--quiet", "feature")
    _, second = build_queue(scenario, "merge", [(OTHER, other), (PR, scenario.heads[-1])])
    step = deliver(scenario, second)
    assert step.code == 0, step.log
    assert len(step.calls) <= 2
    status = last_status(scenario)
    assert (status["sha"], status["state"]) == (second.head_sha, "failure")
    assert status["description"] == f"merge queue: #{OTHER}: not in the ledger"


@pytest.mark.parametrize("method", METHODS)
def test_an_approval_of_an_older_change_does_not_count(scenario: Scenario, method: Method) -> None:
    pr_life_until_override(scenario)
    approved = scenario.heads[-1]
    scenario.push({"out/report.json": '{"widgets": [], "total": 0}\n'}, "Change the report")
    assert scenario.pr_event("synchronize").code == 0
    (group,) = build_queue(scenario, method, [(PR, approved)])
    deliver(scenario, group)
    assert last_status(scenario)["state"] == "failure"
    assert f"#{PR}: v2 is not approved" in last_status(scenario)["description"]


def test_an_entry_merged_meanwhile_is_not_held_against_the_next(scenario: Scenario) -> None:
    pr_life_until_override(scenario)
    other = other_pr(scenario, OTHER, "other.txt", "merged while the next entry is checked\n")
    first, second = build_queue(
        scenario, "rebase", [(OTHER, other), (PR, scenario.heads[-1])], push=(PR,)
    )
    git(scenario.work, "push", "--quiet", str(scenario.remote), f"{first.head_sha}:refs/heads/main")
    deliver(scenario, second)
    assert last_status(scenario)["state"] == "success", last_status(scenario)


def test_the_real_payload_names_the_commit_the_entry_was_built_on() -> None:
    """octokit/webhooks' `merge_group` example: three different commits (read from ../shared
    when a copy is there)."""
    copies = sorted(SHARED_WEBHOOKS.glob("merge_group*.json")) if SHARED_WEBHOOKS.is_dir() else []
    if copies:
        payload = json.loads(copies[0].read_text(encoding="utf-8"))
    else:
        payload = merge_group_payload(
            "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d",
            "31b122c26a97cf9af023e9ddab94a82c6e77b0ea",
            "380387fbc80638b734a49e1be1c4dfec1c01b33c",
            104,
            "929f8209d40f77f4abc622a499c93a83babdbe64",
        )
    event = parse_merge_group(payload)
    assert isinstance(event, MergeGroupEvent)
    group = payload["merge_group"]
    assert event.built_on == group["head_ref"].rsplit("-", 1)[1]
    assert len({event.built_on, event.base_sha, event.head_sha}) == 3


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
