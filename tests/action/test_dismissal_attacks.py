"""A dismissed review takes the approval it gave with it (`rubricate action`, real git
repositories, the fake GitHub, payloads shaped as GitHub's `pull_request_review` `dismissed`).

A maintainer dismisses an approving review on GitHub: the gate of the version it approved goes
back to pending, and nothing brings the review's approval back (a redelivery of the review, a
run of it that comes after the dismissal's, a body edited before the dismissal). Another
reviewer's approval is not the dismissed review's, and stays.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from rubricate.action import main as main_module
from rubricate.ledger.event import Event
from rubricate.ledger.fold import job_lifecycle
from tests.action.payloads import review_event
from tests.action.scenario import AUTHOR, MAINTAINER, PR, WRITER, Scenario, Step

APPROVE = "/approve spec=5 comp=5 qual=5 ver=5 format=5"
OTHER = "carl"


def _gate(scenario: Scenario) -> str | None:
    """The last `rubricate/approval` state set on the PR's head (None: never set)."""
    states = [s["state"] for s in scenario.fake.statuses if s["sha"] == scenario.heads[-1]]
    return states[-1] if states else None


def _dismissal(
    scenario: Scenario,
    submitted: dict[str, Any],
    body: str | None = None,
    closed_at: datetime | None = None,
) -> Any:
    """The `dismissed` payload of a submitted review, by a maintainer, now (on a PR closed at
    `closed_at`)."""
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
        closed_at=closed_at,
    )


def _dismiss(scenario: Scenario, submitted: dict[str, Any]) -> Step:
    """The dismissal's run, which succeeds."""
    step = scenario.deliver("dismissed", "pull_request_review", _dismissal(scenario, submitted))
    assert step.code == 0, step.log
    return step


def test_a_dismissed_approving_review_puts_the_gate_back_to_pending(opened: Scenario) -> None:
    submitted = opened.review_payload(WRITER, APPROVE)
    assert opened.deliver("review", "pull_request_review", submitted).code == 0
    assert _gate(opened) == "success"
    step = _dismiss(opened, submitted)
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
    _dismiss(opened, submitted)
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
    step = _dismiss(opened, submitted)
    assert _gate(opened) == "success", step.log


def test_a_dismissed_override_in_a_review_stops_counting(opened: Scenario) -> None:
    """A failing approval overridden in a maintainer's review: the review dismissed, the
    override it held goes, and the failing approval it overrode (another's) stands again."""
    assert opened.comment(WRITER, "/approve spec=1 comp=1 qual=1 ver=1 format=1").code == 0
    assert _gate(opened) == "failure"
    reason = "/override the schema gap is tracked in #13 and ships next sprint"
    submitted = opened.review_payload(MAINTAINER, reason)
    assert opened.deliver("override review", "pull_request_review", submitted).code == 0
    assert _gate(opened) == "success"
    step = _dismiss(opened, submitted)
    assert _gate(opened) == "failure", step.log


def test_a_dismissal_keeps_another_approval_written_before_it_whose_run_is_late(
    opened: Scenario,
) -> None:
    """The review approves; carl's `/approve` is written before the review is dismissed, and
    its run comes after the dismissal's: the dismissal took the review's approval, not carl's."""
    opened.fake.roles[OTHER] = "write"
    submitted = opened.review_payload(WRITER, APPROVE)
    assert opened.deliver("review", "pull_request_review", submitted).code == 0
    late = opened.comment_payload(OTHER, APPROVE)
    step = _dismiss(opened, submitted)
    assert _gate(opened) == "pending", step.log
    step = opened.deliver("carl's run, late", "issue_comment", late)
    assert step.code == 0, step.log
    assert _gate(opened) == "success", step.log


def test_a_dismissal_run_cancelled_after_its_lowering_does_not_keep_the_next_green_away(
    opened: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A maintainer dismisses a review that approved nothing; the run lowers the head, then is
    cancelled: the view state never learns of the pending. The next run's green is sent all the
    same (GitHub's latest status is read before a green is skipped)."""
    assert opened.comment(WRITER, APPROVE).code == 0
    assert _gate(opened) == "success"
    submitted = opened.review_payload(OTHER, "Looks fine to me")

    def cancelled(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt  # what a cancelled job's SIGINT raises in Python

    real = main_module.locate
    monkeypatch.setattr(main_module, "locate", cancelled)
    with pytest.raises(KeyboardInterrupt):
        opened.deliver("dismissed", "pull_request_review", _dismissal(opened, submitted))
    assert _gate(opened) == "pending"
    monkeypatch.setattr(main_module, "locate", real)
    step = opened.pr_event("synchronize")
    assert step.code == 0, step.log
    assert _gate(opened) == "success", step.log


def test_a_dismissal_while_the_pr_is_closed_holds_at_its_reopening(opened: Scenario) -> None:
    """Closed without merge, the approving review dismissed, reopened at the same head: the
    dismissed approval does not come back (and the dismissal does not read as a reopening)."""
    submitted = opened.review_payload(WRITER, APPROVE)
    assert opened.deliver("review", "pull_request_review", submitted).code == 0
    assert opened.pr_event("closed").code == 0
    closed_at = opened.clock
    payload = _dismissal(opened, submitted, closed_at=closed_at)
    step = opened.deliver("dismissed", "pull_request_review", payload)
    assert step.code == 0, step.log
    events = [Event.model_validate(e) for e in opened.ledger_events()]
    assert job_lifecycle(events) == "abandoned", step.log
    step = opened.pr_event("reopened")
    assert step.code == 0, step.log
    assert _gate(opened) == "pending", step.log
