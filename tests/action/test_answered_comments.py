"""A comment is answered once: a re-run of its run neither answers it again nor re-decides a
refusal, a reply that failed is retried, and the answered ids kept beside the ledger are merged
with the tip's and bounded. The bot's workflow queues every run of a PR, never cancels one."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
import yaml

from rubricate.bot.view_state import KEEP_ANSWERED, ViewState, decode_views, encode_views
from tests.action.payloads import REPO, issue_comment_event
from tests.action.scenario import AUTHOR, MAINTAINER, PR, WRITER, Scenario, Step

LOW = "/approve spec=2 comp=2 qual=2 ver=2 format=2"
OVERRIDE = "/override the schema gap is tracked in #13 and ships next sprint"
VIEWS = f"views/{REPO}/{PR}.json"
SCORE = "/score spec=4 comp=4 qual=3 ver=3 format=4"
COMMENTS = f"POST /repos/{REPO}/issues/{PR}/comments"


def say(scenario: Scenario, actor: str, body: str, comment_id: int, at: datetime) -> Step:
    """Deliver one comment with a fixed id and time (a workflow re-run delivers it unchanged)."""
    payload = issue_comment_event(
        comment_id=comment_id, body=body, actor=actor, number=PR, pr_author=AUTHOR, at=at
    )
    return scenario.deliver(f"comment {comment_id}", "issue_comment", payload)


def _bot_comments(scenario: Scenario) -> list[str]:
    return [c["body"] for c in scenario.fake.comments_on(PR) if c["user"]["login"].endswith("]")]


def replies(scenario: Scenario) -> list[str]:
    fake = scenario.fake
    return [c["body"] for c in fake.comments_on(PR) if c["user"]["login"] == fake.bot_login][1:]


def test_an_informational_comment_is_answered_once(opened: Scenario) -> None:
    comment = opened.fake.add_comment(PR, "/rubric", WRITER)
    at = opened.tick()
    assert say(opened, WRITER, "/rubric", comment["id"], at).code == 0
    assert len(replies(opened)) == 1
    rerun = say(opened, WRITER, "/rubric", comment["id"], at)
    assert rerun.code == 0
    assert "was already answered" in rerun.log
    assert len(replies(opened)) == 1
    assert not [line for line in rerun.calls if line.startswith(("POST", "PATCH"))]
    views = json.loads(opened.data_file(VIEWS) or b"{}")
    assert f"comment:{comment['id']}" in views["answered"]


def test_a_refused_override_is_not_reevaluated_by_a_rerun(opened: Scenario) -> None:
    early = opened.fake.add_comment(PR, OVERRIDE, MAINTAINER)
    at = opened.tick()
    refused = say(opened, MAINTAINER, OVERRIDE, early["id"], at)
    assert refused.code == 0
    assert "there is no approval of v1 to override" in replies(opened)[-1]
    approve = opened.fake.add_comment(PR, LOW, WRITER)
    assert say(opened, WRITER, LOW, approve["id"], opened.tick()).code == 0
    assert opened.fake.statuses[-1]["state"] == "failure"
    rerun = say(opened, MAINTAINER, OVERRIDE, early["id"], at)
    assert rerun.code == 0
    assert not [e for e in opened.ledger_events() if e.get("override")]
    assert opened.fake.statuses[-1]["state"] == "failure"


def test_a_failed_reply_is_retried_by_a_rerun(opened: Scenario) -> None:
    fake = opened.fake
    comment = fake.add_comment(PR, "/rubric", WRITER)
    at = opened.tick()
    fake.failures[f"POST /repos/{REPO}/issues/{PR}/comments"] = 1
    assert say(opened, WRITER, "/rubric", comment["id"], at).code == 1
    assert replies(opened) == []
    assert say(opened, WRITER, "/rubric", comment["id"], at).code == 0
    assert len(replies(opened)) == 1


def test_answered_ids_are_merged_with_the_tip_and_bounded() -> None:
    ours = ViewState(pr=PR, answered=["comment:1"]).with_answered("comment:3")
    tip = ViewState(pr=PR, answered=["comment:1", "comment:2"])
    assert ours.merged_with(tip).answered == ["comment:2", "comment:1", "comment:3"]
    assert ours.with_answered("comment:3") is ours
    many = ViewState(pr=PR, answered=[f"comment:{n}" for n in range(KEEP_ANSWERED + 10)])
    kept = decode_views(encode_views(many), PR).answered
    assert len(kept) == KEEP_ANSWERED
    assert kept[-1] == f"comment:{KEEP_ANSWERED + 9}"


def test_the_bot_workflow_queues_every_run_of_a_pr() -> None:
    template = Path(__file__).resolve().parents[2] / "examples" / "workflows" / "rubricate.yml"
    job = yaml.safe_load(template.read_text(encoding="utf-8"))["jobs"]["rubricate"]
    assert job["concurrency"]["queue"] == "max", "a newer run must never cancel a waiting one"
    assert job["concurrency"]["cancel-in-progress"] is False


def test_a_re_run_finds_the_reply_an_earlier_run_posted(
    opened: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened.fake.roles.pop(WRITER)
    first = opened.comment(WRITER, SCORE)
    assert f"GET /repos/{REPO}/issues/{PR}/comments" not in first.calls  # a first attempt
    comment_id = opened.fake.comments_on(PR)[-2]["id"]
    env = opened.env
    monkeypatch.setattr(
        opened, "env", lambda name, path: {**env(name, path), "GITHUB_RUN_ATTEMPT": "2"}
    )
    again = opened.comment(WRITER, SCORE, comment_id=comment_id)
    assert first.code == again.code == 1
    assert COMMENTS not in again.calls
    assert "already posted" in again.log
    assert len([r for r in _bot_comments(opened) if "could not read your role" in r]) == 1
