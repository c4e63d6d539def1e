"""Held-out attacks on the merge-queue gate (`merge_group`), with groups built on real git the
way GitHub's queue builds them: bases whose names hold slashes, several PRs in one group, and a
PR approved against another base than the queue's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rubricate.action import data_branch
from tests.action.fake_github import FakeGitHub
from tests.action.queue_groups import Group, build_queue, merge_group_payload, pushed_commit
from tests.action.scenario import (
    CONFIG,
    MAINTAINER,
    OVERRIDE,
    PR,
    WRITER,
    Scenario,
    Step,
    git,
)
from tests.action.test_attack_config import LENIENT_RUBRIC, LOW

APPROVE = "/approve spec=3 comp=2 qual=2 ver=2 format=2"
OTHER = 8


@pytest.fixture
def scenario(tmp_path: Path, fake_github: FakeGitHub) -> Scenario:
    return Scenario(tmp_path, fake_github)


def _branch(scenario: Scenario, name: str, start: str, files: dict[str, str]) -> str:
    """A branch `name` from `start` with one commit of these files, pushed; its tip."""
    local = f"local-{name.replace('/', '-')}"
    return pushed_commit(scenario, local, start, files, f"on {name}", f"refs/heads/{name}")


def _open(scenario: Scenario, number: int, head: str, base: str, base_sha: str) -> Step:
    git(
        scenario.work,
        "push",
        "--quiet",
        "--force",
        str(scenario.remote),
        f"{head}:refs/pull/{number}/head",
    )
    scenario.heads.append(head)  # the head this event names
    payload = scenario.pr_payload("opened")
    payload["number"] = payload["pull_request"]["number"] = number
    payload["pull_request"]["head"]["sha"] = head
    payload["pull_request"]["base"] = {"ref": base, "sha": base_sha}
    step = scenario.deliver(f"pull_request opened #{number}", "pull_request_target", payload)
    assert step.code == 0, step.log
    return step


def _approve(scenario: Scenario, number: int, body: str = APPROVE) -> None:
    for actor, text in ((WRITER, body), (MAINTAINER, OVERRIDE)):
        step = scenario.comment(actor, text, number=number)
        assert step.code == 0, step.log


def _queue(scenario: Scenario, base: str, base_sha: str, entries: list[tuple[int, str]]) -> Group:
    """The merge-method group of these entries on `base`, each branch pushed; the last group."""
    return build_queue(scenario, "merge", entries, base=(base, base_sha))[-1]


def _deliver(scenario: Scenario, base: str, base_sha: str, group: Group) -> dict[str, str]:
    payload = merge_group_payload(
        group.head_sha, group.tree, base_sha, group.pr, group.built_on, base=base
    )
    step = scenario.deliver("merge_group", "merge_group", payload)
    assert step.code == 0, step.log
    status: dict[str, str] = scenario.fake.statuses[-1]
    assert status["sha"] == group.head_sha
    return status


def test_a_queue_on_a_base_with_slashes_checks_every_pr_of_the_group(scenario: Scenario) -> None:
    base = "release/1.x"
    tip = _branch(scenario, base, scenario.base_sha, {"CHANGES.md": "1.0\n"})
    ours = _branch(scenario, "f7", tip, {"out/report.json": '{"widgets": [], "total": 0}\n'})
    other = _branch(scenario, "f8", tip, {"other.txt": "the other PR\n"})
    _open(scenario, PR, ours, base, tip)
    _open(scenario, OTHER, other, base, tip)
    _approve(scenario, PR)
    _approve(scenario, OTHER)
    group = _queue(scenario, base, tip, [(OTHER, other), (PR, ours)])
    status = _deliver(scenario, base, tip, group)
    assert (status["state"], status["description"]) == (
        "success",
        f"merge queue: #{OTHER}, #{PR} approved",
    )
    # a queue branch of another base whose name starts the same is no entry of this one
    git(
        scenario.work,
        "push",
        "--quiet",
        str(scenario.remote),
        f"{group.built_on}:refs/heads/gh-readonly-queue/release/pr-{OTHER}-{tip}",
    )
    unapproved = _branch(scenario, "f9", tip, {"third.txt": "never approved\n"})
    _open(scenario, 9, unapproved, base, tip)
    group = _queue(scenario, base, tip, [(9, unapproved), (PR, ours)])
    status = _deliver(scenario, base, tip, group)
    assert status["state"] == "failure"
    assert "#9: v1 is not approved" in status["description"]


def test_an_approval_given_against_another_base_does_not_pass_the_queue(
    scenario: Scenario,
) -> None:
    """Approved on `dev` under its lenient rules; queued into main before the retarget's run
    recorded a new version (the run still queued, or failed): the queue must not take it."""
    rules = CONFIG + "branches:\n  dev: {rubric: rubrics/lenient.yml}\n"
    main = _branch(
        scenario,
        "main",
        scenario.base_sha,
        {".github/rubricate.yml": rules, "rubrics/lenient.yml": LENIENT_RUBRIC},
    )
    dev = _branch(scenario, "dev", main, {"unreviewed.txt": "dev's own change\n"})
    head = _branch(scenario, "f7", dev, {"out/report.json": '{"widgets": [], "total": 0}\n'})
    _open(scenario, PR, head, "dev", dev)
    step = scenario.comment(WRITER, LOW)
    assert step.code == 0, step.log
    assert scenario.fake.statuses[-1]["state"] == "success"  # dev's rules pass it
    group = _queue(scenario, "main", main, [(PR, head)])
    status = _deliver(scenario, "main", main, group)
    assert status["state"] == "failure", status
    assert (
        f"#{PR}: head {head[:12]} changes this base otherwise than the approved change v1"
        in (status["description"])
    )


def test_a_head_shared_with_an_unapproved_pr_is_never_green(scenario: Scenario) -> None:
    """One branch opened into main (#7) and into `release` (#9): a commit status belongs to the
    commit, so #7's approval would show #9 green too. The head stays at #9's gate until #9 is
    approved as well."""
    release = _branch(scenario, "release", scenario.base_sha, {"CHANGES.md": "1.0\n"})
    head = _branch(scenario, "f7", scenario.base_sha, {"out/report.json": "{}\n"})
    _open(scenario, 9, head, "release", release)
    _open(scenario, PR, head, "main", scenario.base_sha)
    _approve(scenario, PR)
    status = scenario.fake.statuses[-1]
    assert (status["sha"], status["state"]) == (head, "pending")
    assert status["description"].startswith("#9 has this head too: ")
    _approve(scenario, 9)
    assert scenario.fake.statuses[-1]["state"] == "success"
    step = scenario.pr_event("closed", merged=True, merged_by=MAINTAINER)
    assert step.code == 0, step.log


def test_a_copy_of_the_pr_into_the_same_base_does_not_hold_its_gate(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anyone may open a PR with the same head into the same base (#9, from a fork): merging
    either merges the same change, so #7's approval turns the head green. Other PRs are listed
    (`git ls-remote`) only when a green is about to be sent, not when it is set already."""
    listed: list[str] = []
    real = data_branch.remote_refs

    def remote_refs(remote: str, patterns: list[str], **kwargs: Any) -> dict[str, str]:
        listed.append(patterns[0])
        return real(remote, patterns, **kwargs)

    monkeypatch.setattr(data_branch, "remote_refs", remote_refs)
    head = _branch(scenario, "f7", scenario.base_sha, {"out/report.json": "{}\n"})
    _open(scenario, PR, head, "main", scenario.base_sha)
    _open(scenario, 9, head, "main", scenario.base_sha)
    _approve(scenario, PR)
    status = scenario.fake.statuses[-1]
    assert (status["sha"], status["state"]) == (head, "success"), status
    assert listed == ["refs/pull/*/head"]
    step = scenario.pr_event("synchronize")
    assert step.code == 0, step.log
    assert "status rubricate/approval unchanged (success)" in step.log
    assert listed == ["refs/pull/*/head"]


def test_a_stacked_pr_queued_after_its_parent_landed_is_green(scenario: Scenario) -> None:
    """#8 adds a helper; #7 builds on #8's branch into main too (approved with #8's change in
    it). #8 lands through the queue; then #7 is queued: its change against main is only its own
    commit, part of what was approved, so it passes."""
    base = scenario.base_sha
    helper = _branch(scenario, "f8", base, {"helper.txt": "helper\n"})
    stacked = _branch(scenario, "f7", helper, {"out/report.json": '{"widgets": [], "total": 0}\n'})
    _open(scenario, 8, helper, "main", base)
    _open(scenario, PR, stacked, "main", base)
    _approve(scenario, 8)
    _approve(scenario, PR)
    first = _queue(scenario, "main", base, [(8, helper)])
    assert _deliver(scenario, "main", base, first)["state"] == "success"
    git(scenario.work, "push", "--quiet", str(scenario.remote), f"{first.head_sha}:refs/heads/main")
    then = _queue(scenario, "main", first.head_sha, [(PR, stacked)])
    status = _deliver(scenario, "main", first.head_sha, then)
    assert status["state"] == "success", status["description"]
