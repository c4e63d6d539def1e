"""A review's dismissal takes back the approvals resting on that review (pure core)."""

from __future__ import annotations

import copy
from typing import Any

from rubricate.bot.effects import AppendEvents, Log, MarkAnswered, SetStatus
from rubricate.bot.events import ReviewEvent
from rubricate.bot.payload import parse_event
from rubricate.rubric.model import Rubric
from tests.bot.conftest import MAINTAINER, WRITER, Harness, load_fixture

HEAD = "a" * 40
APPROVE = "/approve spec=5 completeness=5 quality=5 verifiability=5 format=5"


def _review(body: str = APPROVE, review_id: int = 2002, actor: str = WRITER) -> dict[str, Any]:
    payload = copy.deepcopy(load_fixture("pull_request_review.submitted.json"))
    payload["review"].update(id=review_id, body=body, commit_id=HEAD)
    payload["review"]["user"]["login"] = actor
    payload["pull_request"]["head"]["sha"] = HEAD
    return payload


def _dismissal(submitted: dict[str, Any], at: str | None = "2024-03-04T09:00:00Z") -> Any:
    payload = copy.deepcopy(submitted)
    payload.update(action="dismissed", sender={"login": MAINTAINER, "type": "User"})
    payload["review"]["state"] = "dismissed"
    if at is not None:
        payload["pull_request"]["updated_at"] = at  # GitHub's dismissed review has no update time
    return parse_event("pull_request_review", payload)


def _approved(agora: Rubric) -> tuple[Harness, dict[str, Any]]:
    bot = Harness(agora)
    bot.open(HEAD)
    submitted = _review()
    bot.run(parse_event("pull_request_review", submitted), role="write")  # type: ignore[arg-type]
    assert bot.job.approval is not None
    return bot, submitted


def _states(bot: Harness) -> list[str]:
    return [e.state for e in bot.effects if isinstance(e, SetStatus) and e.sha == HEAD]


def test_a_dismissal_is_parsed_whatever_its_body_holds_now() -> None:
    event = _dismissal(_review(body="LGTM"))
    assert isinstance(event, ReviewEvent)
    assert event.dismissed
    assert (event.dismissed_by, event.commands) == (MAINTAINER, ())
    assert event.dismissed_at is not None
    assert event.dismissed_at.isoformat() == "2024-03-04T09:00:00+00:00"


def test_a_dismissal_without_an_update_time_is_no_earlier_than_its_submission() -> None:
    event = _dismissal(_review(), at=None)
    assert isinstance(event, ReviewEvent)
    assert event.dismissed_at == event.submitted_at


def test_the_dismissal_withdraws_the_reviews_approval_once(agora: Rubric) -> None:
    bot, submitted = _approved(agora)
    bot.run(_dismissal(submitted))  # type: ignore[arg-type]
    assert bot.job.approval is None
    [withdrawal] = [e for e in bot.ledger if e.kind == "revision_requested"]
    assert (withdrawal.delivery, withdrawal.actor) == ("review:2002#dismissed", MAINTAINER)
    assert _states(bot) == ["pending"]
    count = len(bot.ledger)
    bot.run(_dismissal(submitted))  # type: ignore[arg-type]
    assert len(bot.ledger) == count
    bot.run(parse_event("pull_request_review", submitted), role="write")  # type: ignore[arg-type]
    assert len(bot.ledger) == count
    assert bot.job.approval is None


def test_another_approval_does_not_rest_on_the_dismissed_review(agora: Rubric) -> None:
    bot, submitted = _approved(agora)
    bot.say(APPROVE, comment_id=3003, at="2024-03-03T13:00:00Z")
    bot.run(_dismissal(submitted))  # type: ignore[arg-type]
    assert not any(isinstance(e, AppendEvents) for e in bot.effects)
    assert bot.job.approval is not None
    assert _states(bot) == ["success"]  # set again: `rubricate serve` lowered it first


def test_a_review_never_recorded_is_marked_answered(agora: Rubric) -> None:
    bot = Harness(agora)
    bot.open(HEAD)
    bot.run(_dismissal(_review()))  # type: ignore[arg-type]
    assert MarkAnswered("review:2002") in bot.effects
    assert not any(isinstance(e, AppendEvents) for e in bot.effects)


def test_a_dismissal_after_the_merge_changes_nothing(agora: Rubric) -> None:
    bot, submitted = _approved(agora)
    bot.close(merged=True)
    count = len(bot.ledger)
    bot.run(_dismissal(submitted))  # type: ignore[arg-type]
    assert len(bot.ledger) == count
    assert any(isinstance(e, Log) and "merged" in e.message for e in bot.effects)


def test_an_override_written_after_the_dismissal_whose_run_came_first_stays(
    agora: Rubric,
) -> None:
    """A failing approval in a review; a maintainer overrides it in a comment after the review
    was dismissed, and that run comes first: the dismissal takes the review's approval, and the
    override, written later and not the review's, stands on its own."""
    bot = Harness(agora)
    bot.open(HEAD)
    submitted = _review(body="/approve spec=1 completeness=1 quality=1 verifiability=1 format=1")
    bot.run(parse_event("pull_request_review", submitted), role="write")  # type: ignore[arg-type]
    reason = "/override the schema gap is tracked in #13 and ships next sprint"
    bot.say(reason, actor=MAINTAINER, role="maintain", at="2024-03-04T10:00:00Z")
    bot.run(_dismissal(submitted, at="2024-03-04T09:00:00Z"))  # type: ignore[arg-type]
    approval = bot.job.approval
    assert approval is not None
    assert approval.override is not None
    assert _states(bot)[-1] == "success"
