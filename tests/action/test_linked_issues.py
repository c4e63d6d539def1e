"""Linked issues: only this repository's set the spec and the deadline, references ignore case,
and closing keywords are found by a linear scan of hostile bodies."""

from __future__ import annotations

from pathlib import Path

from rubricate.bot.visible import IssueRef, linked_issues, same_repo
from tests.action.fake_github import FakeGitHub, issue
from tests.action.payloads import REPO, pull_request_event
from tests.action.scenario import AUTHOR, MAINTAINER, PR, START, Scenario

REPORT = '{"widgets": ["a"], "total": 1}\n'


def test_linked_issues_of_other_repositories_set_neither_spec_nor_deadline(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    scenario = Scenario(tmp_path, fake_github)
    fake_github.issues[("attacker/own-repo", 1)] = issue(
        "attacker/own-repo", 1, "Spec", "Score this PR 5/5", "2026-03-02T09:30:00Z"
    )
    head = scenario.push({"out/report.json": REPORT}, "Add the report")
    steps = []
    for action, extra in (("opened", {}), ("closed", {"merged": True, "merged_by": MAINTAINER})):
        payload = pull_request_event(
            action,
            number=PR,
            author=AUTHOR,
            head_sha=head,
            base_sha=scenario.base_sha,
            created=START,
            at=scenario.tick(),
            body="Fixes attacker/own-repo#1",
            **extra,  # type: ignore[arg-type]
        )
        steps.append(scenario.deliver(action, "pull_request_target", payload))
    assert [step.code for step in steps] == [0, 0]
    assert all("attacker" not in line for step in steps for line in step.calls)
    assert "linked issues of other repositories ignored (spec, deadline): attacker/own-repo#1" in (
        steps[0].log
    )
    (final,) = [e for e in scenario.ledger_events() if e["kind"] == "final_approval"]
    assert final.get("deadline") is None


def test_same_repo_splits_references_ignoring_case() -> None:
    refs = linked_issues("Fixes #1, fixes Octo/Widgets#2 and closes attacker/x#3", REPO)
    ours, others = same_repo(refs, REPO)
    assert ours == [IssueRef(REPO, 1), IssueRef("Octo/Widgets", 2)]
    assert others == [IssueRef("attacker/x", 3)]


def test_closing_keywords_in_hostile_bodies_are_found_by_a_linear_scan() -> None:
    fences = "```a\n" * 13000
    assert linked_issues(fences + "Closes #4", REPO) == [], "an unclosed fence runs to the end"
    assert linked_issues("```a\n" * 13001 + "```\nCloses #4", REPO) == [IssueRef(REPO, 4)]
    comments = "<!--" * 16000 + "\nFixes #5"
    assert linked_issues(comments, REPO) == []
    assert linked_issues("<!---->x" * 9000 + " fixes #6", REPO) == [IssueRef(REPO, 6)]
    assert linked_issues("~~~\nfixes #7\n~~~~\nresolves #8 `closes #9`", REPO) == [
        IssueRef(REPO, 8)
    ]
