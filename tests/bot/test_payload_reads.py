"""What a run reads from a payload besides the event: the commands a comment or review carries
(parsed once), the PR's base and head, the default branch, and the spec of linked issues."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from rubricate.bot.commands import CommandMistake, ParsedCommand
from rubricate.bot.events import CommentEvent, ReviewEvent
from rubricate.bot.payload import default_branch, parse_event, pull_from_payload, spec_text
from rubricate.bot.view_state import PullState
from tests.action.payloads import issue_comment_event, review_event

AT = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


def test_a_comment_carries_its_commands_in_order() -> None:
    body = "Looks good.\n/approve spec=4\n/frobnicate\n"
    payload = issue_comment_event(
        comment_id=9, body=body, actor="w", number=7, pr_author="a", at=AT
    )
    event = parse_event("issue_comment", payload)
    assert isinstance(event, CommentEvent)
    first, second = event.commands
    assert isinstance(first, ParsedCommand)
    assert (first.name, first.index, first.scores) == ("approve", 0, (("spec", 4),))
    assert isinstance(second, CommandMistake)
    assert (second.index, second.raw) == (1, "/frobnicate")


def test_a_review_carries_its_commands_and_names_its_base() -> None:
    payload = review_event(
        review_id=5,
        body="/score spec=3",
        actor="w",
        number=7,
        pr_author="a",
        head_sha="b" * 40,
        base_sha="c" * 40,
        at=AT,
    )
    event = parse_event("pull_request_review", payload)
    assert isinstance(event, ReviewEvent)
    assert [c.name for c in event.commands] == ["score"]
    base = payload["pull_request"]["base"]
    assert pull_from_payload(event, payload) == PullState(
        base_sha=base["sha"], base_ref=base["ref"], head_sha=event.head_sha
    )


def test_a_comment_names_no_base_and_the_default_branch_is_read_when_named() -> None:
    payload = issue_comment_event(
        comment_id=9, body="/rubric", actor="w", number=7, pr_author="a", at=AT
    )
    event = parse_event("issue_comment", payload)
    assert isinstance(event, CommentEvent)
    assert pull_from_payload(event, payload) is None
    assert default_branch({"repository": {"default_branch": "trunk"}}) == "trunk"
    assert default_branch({"repository": {"default_branch": ""}}) is None
    assert default_branch({"repository": "octo/widgets"}) is None


@dataclass(frozen=True)
class Issue:
    ref: str
    title: str
    body: str


def test_the_spec_is_each_linked_issue_title_and_body() -> None:
    issues = [Issue("o/r#1", "Add widgets", "List them."), Issue("o/r#2", "Count them", "")]
    assert spec_text(issues) == "# Add widgets (o/r#1)\n\nList them.\n\n# Count them (o/r#2)"
    assert spec_text([]) == ""
