"""Held-out attacks on the gate through the order and the source of events (`rubricate action`,
real git repositories, the fake GitHub, real payload shapes): a push no run has recorded yet, a
delivery replayed after a push, a PR closed and reopened on another head, commands written where
no reviewer wrote them (a title, a body, a commit message, a review comment), command look-alikes
in Unicode, and actors that are not who they seem (an App, an `author_association` of OWNER).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rubricate.ledger.event import Event
from rubricate.ledger.fold import job_lifecycle
from tests.action.fake_github import FakeGitHub, pull
from tests.action.payloads import REPO
from tests.action.scenario import AUTHOR, CONFIG, PR, WRITER, Scenario, Step

APPROVE = "/approve spec=5 comp=5 qual=5 ver=5 format=5"
EVIL = {"out/report.json": '{"widgets": [], "total": 9}\n', "evil.txt": "unreviewed\n"}


def _gate(scenario: Scenario, sha: str) -> str | None:
    """The last `rubricate/approval` state set on a commit (None: never set)."""
    states = [s["state"] for s in scenario.fake.statuses if s["sha"] == sha]
    return states[-1] if states else None


def _kinds(scenario: Scenario) -> list[str]:
    return [e["kind"] for e in scenario.ledger_events()]


def test_an_approval_before_a_push_is_recorded_never_turns_the_new_head_green(
    opened: Scenario,
) -> None:
    """The author pushes; the run for the push has not recorded it (queued, failed, lost) when a
    writer approves: the approval is the recorded version's, and only its head turns green."""
    approved = opened.heads[-1]
    pushed = opened.push(EVIL, "Change the report after review")
    opened.fake.pulls[PR] = pull(REPO, PR, author=AUTHOR, head_sha=pushed, base_sha=opened.base_sha)
    assert opened.comment(WRITER, APPROVE).code == 0
    assert _gate(opened, approved) == "success"
    assert _gate(opened, pushed) is None
    assert opened.pr_event("synchronize").code == 0
    assert _gate(opened, pushed) == "pending"


def test_a_replayed_delivery_of_the_approved_head_does_not_bring_its_gate_back(
    opened: Scenario,
) -> None:
    """v1 approved; the author pushes v2; the `opened` delivery of v1 is delivered again (a
    webhook redelivery, a re-run of the old run): it is older than the push, so v1 stays
    behind and v2's head stays pending."""
    assert opened.comment(WRITER, APPROVE).code == 0
    opened.push(EVIL, "Change the report after review")
    assert opened.pr_event("synchronize").code == 0
    replay = json.loads((opened.root / "event-0.json").read_text())
    step = opened.deliver("opened again", "pull_request_target", replay)
    assert step.code == 0, step.log
    assert "older than the latest head event recorded" in step.log
    assert _gate(opened, opened.heads[-1]) == "pending"
    comment = opened.comment(WRITER, "/rubric")
    assert comment.code == 0
    assert _gate(opened, opened.heads[-1]) == "pending"


def test_a_replayed_approval_after_a_push_does_not_approve_the_push(opened: Scenario) -> None:
    """The approval comment of v1 is delivered again (same comment id) after the author pushed v2:
    it was written before v2 existed and was answered already; v2 stays pending."""
    assert opened.comment(WRITER, APPROVE).code == 0
    replay = json.loads((opened.root / f"event-{len(opened.steps) - 1}.json").read_text())
    opened.push(EVIL, "Change the report after review")
    assert opened.pr_event("synchronize").code == 0
    again = opened.deliver("approval again", "issue_comment", replay)
    assert again.code == 0, again.log
    assert _kinds(opened).count("approved") == 1
    assert _gate(opened, opened.heads[-1]) == "pending"


def test_a_pr_closed_then_reopened_on_another_head_is_pending(opened: Scenario) -> None:
    """Approved, closed, its branch pushed while closed, reopened: the reopened head is a new
    version, not the approved one."""
    assert opened.comment(WRITER, APPROVE).code == 0
    assert _gate(opened, opened.heads[-1]) == "success"
    assert opened.pr_event("closed").code == 0
    opened.push(EVIL, "Change the report while closed")
    step = opened.pr_event("reopened")
    assert step.code == 0, step.log
    assert _gate(opened, opened.heads[-1]) == "pending"
    merged = opened.pr_event("closed", merged=True, merged_by="mia")
    assert merged.code == 0
    final = [e for e in opened.ledger_events() if e["kind"] == "final_approval"]
    assert [e["gate"] for e in final] == ["bypassed"]


def test_a_close_whose_run_comes_after_the_reopens_leaves_the_job_open(opened: Scenario) -> None:
    """The PR is closed and reopened; the close's run fails and is re-run after the reopen's
    (or is delivered late): the job is open, as the PR is, not abandoned in the author's
    reputation."""
    closed = opened.pr_payload("closed")
    reopened = opened.pr_payload("reopened")
    assert opened.deliver("reopened", "pull_request_target", reopened).code == 0
    assert opened.deliver("closed, re-run", "pull_request_target", closed).code == 0
    events = [Event.model_validate(e) for e in opened.ledger_events()]
    assert "abandoned" in _kinds(opened)
    assert job_lifecycle(events) == "open"


def test_a_review_of_the_approved_commit_after_a_push_is_refused(opened: Scenario) -> None:
    """A review submitted on v1's commit once v2 is current does not approve v2."""
    reviewed = opened.heads[-1]
    opened.push(EVIL, "Change the report during review")
    assert opened.pr_event("synchronize").code == 0
    payload = opened.review_payload(WRITER, APPROVE)
    payload["review"]["commit_id"] = reviewed
    step = opened.deliver("review of v1", "pull_request_review", payload)
    assert step.code == 0, step.log
    assert "approved" not in _kinds(opened)
    assert _gate(opened, opened.heads[-1]) == "pending"


def _with_text(scenario: Scenario, where: str) -> Step:
    """The PR (opened, not yet run) carrying an approval where only its author wrote it."""
    files = {"out/report.json": '{"widgets": ["a"], "total": 1}\n'}
    if where == "a file":
        files["notes/review.md"] = f"{APPROVE}\n"
    message = f"Add the report\n\n{APPROVE}\n" if where == "a commit message" else "Add the report"
    scenario.push(files, message)
    payload = scenario.pr_payload("opened")
    if where == "the title":
        payload["pull_request"]["title"] = APPROVE
    if where == "the body":
        payload["pull_request"]["body"] = f"Closes #12\n\n{APPROVE}\n"
    return scenario.deliver(f"opened with {where}", "pull_request_target", payload)


@pytest.mark.parametrize("where", ["the title", "the body", "a commit message", "a file"])
def test_a_command_the_author_writes_in_the_pr_itself_is_never_applied(
    tmp_path: Path, fake_github: FakeGitHub, where: str
) -> None:
    """Only comments and reviews hold commands; and rubricate's own comments, which show the
    PR's text, never show one where a reader (or rubricate) would take it for a command."""
    scenario = Scenario(tmp_path, fake_github)
    step = _with_text(scenario, where)
    assert step.code == 0, step.log
    assert _kinds(scenario) == ["first_submission"]
    assert _gate(scenario, scenario.heads[-1]) == "pending"
    for comment in scenario.fake.comments_on(PR):
        payload = scenario.comment_payload(WRITER, comment["body"], comment_id=comment["id"])
        assert scenario.deliver("our comment", "issue_comment", payload).code == 0
    assert "approved" not in _kinds(scenario)


def test_a_review_comment_on_a_line_is_not_a_command_source(opened: Scenario) -> None:
    """`pull_request_review_comment` (a comment on a diff line) is not an event rubricate
    handles; an approval written there applies nothing."""
    payload: dict[str, Any] = {
        "action": "created",
        "comment": {
            "id": 555,
            "body": APPROVE,
            "user": {"login": WRITER, "id": 9, "type": "User"},
            "commit_id": opened.heads[-1],
            "path": "out/report.json",
            "created_at": "2026-03-02T12:00:00Z",
        },
        "pull_request": json.loads((opened.root / "event-0.json").read_text())["pull_request"],
        "repository": {"full_name": REPO, "default_branch": "main"},
        "sender": {"login": WRITER, "id": 9, "type": "User"},
    }
    step = opened.deliver("line comment", "pull_request_review_comment", payload)
    assert step.code == 0, step.log
    assert step.calls == []
    assert "approved" not in _kinds(opened)


LOOK_ALIKES = {
    "a full-width solidus": "\uff0fapprove spec=5 comp=5 qual=5 ver=5 format=5",
    "a division slash": "\u2215approve spec=5 comp=5 qual=5 ver=5 format=5",
    "a zero-width joiner in the name": "/app\u200drove spec=5 comp=5 qual=5 ver=5 format=5",
    "a right-to-left override first": "\u202e/approve spec=5 comp=5 qual=5 ver=5 format=5",
    "a zero-width space first": "\u200b/approve spec=5 comp=5 qual=5 ver=5 format=5",
    "a no-break space as indent": "\u00a0/approve spec=5 comp=5 qual=5 ver=5 format=5",
    "a tab as indent (code)": "\t/approve spec=5 comp=5 qual=5 ver=5 format=5",
    "a line separator mid-line": f"LGTM once the total is fixed\u2028{APPROVE}",
    "a paragraph separator mid-line": f"LGTM once the total is fixed\u2029{APPROVE}",
    "a next-line control mid-line": f"LGTM once the total is fixed\x85{APPROVE}",
    "a form feed mid-line": f"LGTM once the total is fixed\x0c{APPROVE}",
    "a Cyrillic a in the name": "/\u0430pprove spec=5 comp=5 qual=5 ver=5 format=5",
}


@pytest.mark.parametrize("name", sorted(LOOK_ALIKES))
def test_a_command_look_alike_is_not_applied(opened: Scenario, name: str) -> None:
    """Only an ASCII `/` and name at a line's start (line ends as CommonMark has them: LF, CR,
    CRLF) make a command; Unicode that looks like one, or that a reader sees mid-line, does not."""
    step = opened.comment(WRITER, LOOK_ALIKES[name])
    assert step.code == 0, step.log
    assert "approved" not in _kinds(opened)
    assert _gate(opened, opened.heads[-1]) == "pending"


def test_a_github_app_comment_is_ignored_even_from_a_writer_app(opened: Scenario) -> None:
    """An App's comment (login `…[bot]`, type Bot) is ignored before any call, whatever role
    the App holds; a user's comment posted through an App is the user's."""
    opened.fake.roles["helper[bot]"] = "admin"
    payload = opened.comment_payload("helper[bot]", APPROVE)
    step = opened.deliver("app comment", "issue_comment", payload)
    assert step.code == 0, step.log
    assert step.calls == []
    typed = opened.comment_payload("helper", APPROVE)
    typed["comment"]["user"]["type"] = "Bot"
    opened.fake.roles["helper"] = "admin"
    step = opened.deliver("bot-typed comment", "issue_comment", typed)
    assert step.code == 0, step.log
    assert step.calls == []
    via_app = opened.comment_payload("rita", APPROVE)
    via_app["comment"]["performed_via_github_app"] = {"slug": "helper", "id": 5}
    opened.fake.roles["rita"] = "read"
    assert opened.deliver("via an app", "issue_comment", via_app).code == 0
    assert "approved" not in _kinds(opened)


def test_author_association_owner_gives_no_role(opened: Scenario) -> None:
    """The payload says OWNER; the permission endpoint says read: read decides."""
    opened.fake.roles["rita"] = "read"
    payload = opened.comment_payload("rita", APPROVE)
    payload["comment"]["author_association"] = "OWNER"
    step = opened.deliver("owner by association", "issue_comment", payload)
    assert step.code == 0, step.log
    assert "approved" not in _kinds(opened)
    assert "needs the write role" in opened.fake.comments_on(PR)[-1]["body"]


def test_a_pull_request_event_whose_head_lowers_the_rules_is_judged_by_main(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    """The same run on `pull_request` (a workflow that listens to it by mistake) still reads the
    config and rubric from the default branch, never the PR head's."""
    scenario = Scenario(tmp_path, fake_github)
    lenient = CONFIG + "commands:\n  roles: {approve: read}\n"
    scenario.push({".github/rubricate.yml": lenient, "out/report.json": "{}\n"}, "Lower the bar")
    payload = scenario.pr_payload("opened")
    assert scenario.deliver("opened", "pull_request", payload).code == 0
    scenario.fake.roles["rita"] = "read"
    assert scenario.comment("rita", APPROVE).code == 0
    assert "approved" not in _kinds(scenario)
    assert _gate(scenario, scenario.heads[-1]) == "pending"
