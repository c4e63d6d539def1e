"""Webhook payloads: the real ones in ../shared and the project's own minimal fixtures."""

from __future__ import annotations

import copy
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from rubricate.bot.effects import AppendEvents, SetStatus, UpsertComment
from rubricate.bot.events import CommentEvent, Ignored, PullRequestEvent, ReviewEvent
from rubricate.bot.payload import PayloadError, parse_event
from rubricate.bot.visible import reverted_pr

from .conftest import SHARED_WEBHOOKS, Harness, load_fixture, of_type


def shared(name: str) -> dict[str, Any]:
    path = SHARED_WEBHOOKS / name
    if not path.is_file():
        pytest.skip(f"shared payload {name} is not available")
    data: dict[str, Any] = json.loads(Path(path).read_text())
    return data


def test_real_opened_payload() -> None:
    event = parse_event("pull_request", shared("pull_request.opened.json"))
    assert isinstance(event, PullRequestEvent)
    assert (event.action, event.number, event.author, event.repo) == (
        "opened",
        2,
        "Codertocat",
        "Codertocat/Hello-World",
    )
    assert event.head_sha == "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
    assert event.base_ref == "master"
    assert event.at == datetime(2019, 5, 15, 15, 20, 33, tzinfo=timezone.utc)
    assert not event.merged
    assert not event.draft
    assert not event.author_is_bot


def test_real_payloads_route_the_same_under_pull_request_target() -> None:
    payload = shared("pull_request.synchronize.json")
    assert parse_event("pull_request_target", payload) == parse_event("pull_request", payload)


def test_real_merged_revert_payload() -> None:
    event = parse_event("pull_request", shared("pull_request.closed.merged.json"))
    assert isinstance(event, PullRequestEvent)
    assert event.merged
    assert event.merged_by == "robvanderleek"
    assert event.merged_at == datetime(2020, 3, 23, 6, 46, 56, tzinfo=timezone.utc)
    assert event.merge_commit_sha == "5a47c3f3c22f54f37a3297f2f1c98d860fba4489"
    assert reverted_pr(event) == 111


def test_real_comment_payload_without_a_command_is_ignored() -> None:
    payload = shared("issue_comment.created.pull_request.json")
    assert payload["comment"]["body"].startswith("@all-contributors please add")
    event = parse_event("issue_comment", payload)
    assert isinstance(event, Ignored)
    assert event.reason == "comment 453012966 on #1 holds no command"


def test_real_comment_payload() -> None:
    payload = shared("issue_comment.created.pull_request.json")
    payload["comment"]["body"] = "/rubric"
    event = parse_event("issue_comment", payload)
    assert isinstance(event, CommentEvent)
    assert (event.comment_id, event.number, event.actor, event.pr_author) == (
        453012966,
        1,
        "jakebolam",
        "jakebolam",
    )
    assert event.pr_open
    assert event.pr_merged is None


@pytest.mark.parametrize(
    "name",
    [
        "pull_request.opened.json",
        "pull_request.synchronize.json",
        "pull_request.closed.merged.json",
        "issue_comment.created.pull_request.json",
    ],
)
def test_real_payloads_are_routed_through_the_handler(agora: Any, name: str) -> None:
    payload = shared(name)
    event_name = "issue_comment" if name.startswith("issue_comment") else "pull_request"
    if event_name == "issue_comment":
        payload["comment"]["body"] = "/rubric"
    event = parse_event(event_name, payload)
    assert not isinstance(event, Ignored)
    bot = Harness(agora)
    effects = bot.run(event, role="write")
    assert effects, name
    if isinstance(event, PullRequestEvent):
        if event.action == "closed":
            assert [e.kind for e in of_type(effects, AppendEvents)[0].events] == ["final_approval"]
            assert of_type(effects, UpsertComment)
        else:
            assert of_type(effects, SetStatus)[0].state == "pending"


def test_own_fixtures_parse() -> None:
    assert isinstance(
        parse_event("pull_request", load_fixture("pull_request.opened.json")), PullRequestEvent
    )
    merged = parse_event("pull_request", load_fixture("pull_request.closed.merged.json"))
    assert isinstance(merged, PullRequestEvent)
    assert merged.milestone_due_on == datetime(2024, 3, 10, 7, tzinfo=timezone.utc)
    review = parse_event("pull_request_review", load_fixture("pull_request_review.submitted.json"))
    assert isinstance(review, ReviewEvent)
    assert (review.review_id, review.head_sha) == (2002, "c" * 40)


def _variant(name: str, path: tuple[str, ...], value: Any) -> dict[str, Any]:
    payload = copy.deepcopy(load_fixture(name))
    target = payload
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return payload


@pytest.mark.parametrize(
    ("event_name", "payload", "reason"),
    [
        ("issue_comment", _variant("issue_comment.created.json", ("action",), "edited"), "edited"),
        (
            "issue_comment",
            _variant("issue_comment.created.json", ("action",), "deleted"),
            "deleted",
        ),
        (
            "issue_comment",
            _variant("issue_comment.created.json", ("issue", "pull_request"), None),
            "plain issue",
        ),
        (
            "pull_request",
            _variant("pull_request.opened.json", ("pull_request", "draft"), True),
            "draft",
        ),
        ("pull_request", _variant("pull_request.opened.json", ("action",), "labeled"), "labeled"),
        (
            "pull_request_review",
            _variant("pull_request_review.submitted.json", ("action",), "edited"),
            "edited",
        ),
        ("push", {}, "push"),
        ("check_run", {"action": "completed"}, "check_run"),
    ],
)
def test_ignored_events_say_why(event_name: str, payload: dict[str, Any], reason: str) -> None:
    result = parse_event(event_name, payload)
    assert isinstance(result, Ignored)
    assert reason in result.reason


def test_pr_opened_by_a_bot_account_is_scored() -> None:
    payload = _variant(
        "pull_request.opened.json", ("pull_request", "user"), {"login": "agent[bot]", "type": "Bot"}
    )
    event = parse_event("pull_request", payload)
    assert isinstance(event, PullRequestEvent)
    assert event.author_is_bot


def test_closing_a_draft_is_parsed() -> None:
    payload = _variant("pull_request.opened.json", ("pull_request", "draft"), True)
    payload["action"] = "closed"
    assert isinstance(parse_event("pull_request", payload), PullRequestEvent)


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("pull_request", "head"), None, "`head`"),
        (("pull_request", "number"), "7", "`number`"),
        (("pull_request", "created_at"), "yesterday", "RFC 3339"),
        (("repository",), None, "`repository`"),
    ],
)
def test_malformed_payloads_raise_a_clear_error(
    path: tuple[str, ...], value: Any, message: str
) -> None:
    with pytest.raises(PayloadError, match=message):
        parse_event("pull_request", _variant("pull_request.opened.json", path, value))


def test_revert_detection_ignores_other_repositories_and_itself() -> None:
    event = parse_event("pull_request", load_fixture("pull_request.opened.json"))
    assert isinstance(event, PullRequestEvent)
    from dataclasses import replace

    event = replace(event, title='Revert "Add widget report"')
    assert reverted_pr(replace(event, body="Reverts acme/widgets#5")) == 5
    assert reverted_pr(replace(event, body="Reverts #6\n")) == 6
    assert reverted_pr(replace(event, body="Reverts other/repo#5")) is None
    assert reverted_pr(replace(event, body="Reverts #7")) is None
    assert reverted_pr(replace(event, body="This reverts nothing")) is None
