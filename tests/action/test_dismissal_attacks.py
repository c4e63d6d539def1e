"""A dismissed review takes the approval it gave with it (`rubricate action`, real git
repositories, the fake GitHub, payloads shaped as GitHub's `pull_request_review` `dismissed`).

A maintainer dismisses an approving review on GitHub: the gate of the version it approved goes
back to pending, and nothing brings the review's approval back (a redelivery of the review, a
run of it that comes after the dismissal's, a body edited before the dismissal). Another
reviewer's approval is not the dismissed review's, and stays.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from tests.action.payloads import review_event
from tests.action.scenario import AUTHOR, MAINTAINER, PR, WRITER, Scenario

APPROVE = "/approve spec=5 comp=5 qual=5 ver=5 format=5"
OTHER = "carl"


def _gate(scenario: Scenario) -> str | None:
    """The last `rubricate/approval` state set on the PR's head (None: never set)."""
    states = [s["state"] for s in scenario.fake.statuses if s["sha"] == scenario.heads[-1]]
    return states[-1] if states else None


def _dismissal(scenario: Scenario, submitted: dict[str, Any], body: str | None = None) -> Any:
    """The `dismissed` payload of a submitted review, by a maintainer, now."""
    review = submitted["review"]
    return review_event(
        review_id=review["id"],
        body=review["body"] if body is None else body,
        actor=review["user"]["login"],
        number=PR,
        pr_author=AUTHOR,
        head_sha=review["commit_id"],
        base_sha=submitted["pull_request"]["base"]["sha"],
        at=scenario.tick() - timedelta(seconds=1),
        dismissed_by=MAINTAINER,
        dismissed_at=scenario.tick(),
    )


def test_a_dismissed_approving_review_puts_the_gate_back_to_pending(opened: Scenario) -> None:
    submitted = opened.review_payload(WRITER, APPROVE)
    assert opened.deliver("review", "pull_request_review", submitted).code == 0
    assert _gate(opened) == "success"
    step = opened.deliver("dismissed", "pull_request_review", _dismissal(opened, submitted))
    assert step.code == 0, step.log
    assert _gate(opened) == "pending", step.log
    again = opened.deliver("review redelivered", "pull_request_review", submitted)
    assert again.code == 0, again.log
    assert _gate(opened) == "pending", again.log
    assert opened.comment(WRITER, "/rubric").code == 0
    assert _gate(opened) == "pending"


def test_a_review_dismissed_before_its_run_never_approves(opened: Scenario) -> None:
    """The review's run is queued (or fails) and the dismissal's run comes first: the review's
    later run applies nothing."""
    submitted = opened.review_payload(WRITER, APPROVE)
    step = opened.deliver("dismissed", "pull_request_review", _dismissal(opened, submitted))
    assert step.code == 0, step.log
    late = opened.deliver("review run late", "pull_request_review", submitted)
    assert late.code == 0, late.log
    assert _gate(opened) != "success", late.log


def test_a_review_whose_body_was_edited_before_its_dismissal(opened: Scenario) -> None:
    """The reviewer edits the command out of the review's body, then a maintainer dismisses it:
    the dismissal payload holds no command, and the approval goes all the same."""
    submitted = opened.review_payload(WRITER, APPROVE)
    assert opened.deliver("review", "pull_request_review", submitted).code == 0
    assert _gate(opened) == "success"
    payload = _dismissal(opened, submitted, body="LGTM")
    step = opened.deliver("dismissed", "pull_request_review", payload)
    assert step.code == 0, step.log
    assert _gate(opened) == "pending", step.log


def test_another_reviewers_approval_stays_after_a_dismissal(opened: Scenario) -> None:
    """A dismissal takes back the dismissed review's approval, not a later one by another."""
    opened.fake.roles[OTHER] = "write"
    submitted = opened.review_payload(WRITER, APPROVE)
    assert opened.deliver("review", "pull_request_review", submitted).code == 0
    assert opened.comment(OTHER, APPROVE).code == 0
    step = opened.deliver("dismissed", "pull_request_review", _dismissal(opened, submitted))
    assert step.code == 0, step.log
    assert _gate(opened) == "success", step.log


def test_a_dismissed_override_in_a_review_stops_counting(opened: Scenario) -> None:
    """A failing approval overridden in a maintainer's review: the review dismissed, the
    override it held goes too, and so does the approval it overrode (fails closed)."""
    assert opened.comment(WRITER, "/approve spec=1 comp=1 qual=1 ver=1 format=1").code == 0
    assert _gate(opened) == "failure"
    reason = "/override the schema gap is tracked in #13 and ships next sprint"
    submitted = opened.review_payload(MAINTAINER, reason)
    assert opened.deliver("override review", "pull_request_review", submitted).code == 0
    assert _gate(opened) == "success"
    step = opened.deliver("dismissed", "pull_request_review", _dismissal(opened, submitted))
    assert step.code == 0, step.log
    assert _gate(opened) != "success", step.log
