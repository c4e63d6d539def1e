"""Odd answers and odd inputs in whole runs: refusals that tell the truth, never a traceback,
never a false set (real git repositories, the real PyGithub adapter, the fake GitHub checked
against GitHub's OpenAPI description). The adapter's own answers: tests/github.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from rubricate.bot.view_state import decode_views, view_path
from tests.action.fake_github import pull
from tests.action.payloads import REPO, issue_comment_event, review_event
from tests.action.scenario import AUTHOR, MAINTAINER, PR, WRITER, Scenario

API = "https://api.github.com"
REPORT = '{"widgets": ["a"], "total": 1}\n'
SCORE = "/score spec=4 comp=4 qual=3 ver=3 format=4"
SHA = "a" * 40


def _answered(scenario: Scenario) -> list[str]:
    views = decode_views(scenario.data_file(view_path(REPO, PR)), PR)
    return list(views.answered)


def _replies(scenario: Scenario) -> list[str]:
    return [c["body"] for c in scenario.fake.comments_on(PR) if c["user"]["login"].endswith("]")]


def test_a_role_that_cannot_be_read_is_said_and_the_comment_left_for_a_re_run(
    opened: Scenario,
) -> None:
    opened.fake.roles.pop(WRITER)
    first = opened.comment(WRITER, SCORE)
    assert first.code == 1, "a run that could not decide fails, so that a re-run heals"
    (reply,) = _replies(opened)[-1:]
    assert "could not read your role" in reply
    assert "answered 404" in reply
    assert "you have none" not in reply
    comment_id = opened.fake.comments_on(PR)[-2]["id"]
    assert f"comment:{comment_id}" not in _answered(opened)
    opened.fake.roles[WRITER] = "write"
    again = opened.comment(WRITER, SCORE, comment_id=comment_id)
    assert again.code == 0
    assert any(
        e["kind"] == "review_scored" and e["actor"] == WRITER for e in opened.ledger_events()
    )


def test_a_maintainer_short_override_is_told_the_real_reason(opened: Scenario) -> None:
    step = opened.comment(MAINTAINER, "/override short")
    assert step.code == 0
    reply = _replies(opened)[-1]
    assert "visible characters" in reply
    assert "needs the maintain role" not in reply
    assert step.calls.count(f"GET /repos/{REPO}/collaborators/{MAINTAINER}/permission") == 1


def test_a_writer_short_override_is_told_the_role_it_needs(opened: Scenario) -> None:
    opened.comment(WRITER, "/override short")
    assert "`/override` needs the maintain role or higher; you have write" in _replies(opened)[-1]


def test_a_review_of_the_head_before_its_version_is_recorded_is_not_called_stale(
    opened: Scenario,
) -> None:
    new_head = opened.push({"out/report.json": '{"widgets": [], "total": 0}\n'}, "Empty it")
    payload = review_event(
        review_id=91,
        body=SCORE,
        actor=WRITER,
        number=PR,
        pr_author=AUTHOR,
        head_sha=new_head,
        base_sha=opened.base_sha,
        at=opened.tick(),
    )
    early = opened.deliver("review before the push is recorded", "pull_request_review", payload)
    assert early.code == 0
    reply = _replies(opened)[-1]
    assert "has not recorded as a version yet" in reply
    assert "re-check v1" not in reply
    assert "review:91" not in _answered(opened)
    assert opened.pr_event("synchronize").code == 0
    again = opened.deliver("the same review, re-run", "pull_request_review", payload)
    assert again.code == 0
    scored = [e for e in opened.ledger_events() if e.get("delivery") == "review:91#0"]
    assert [e["version"] for e in scored] == [2]


def test_a_pr_number_of_2_to_the_31_is_a_clear_payload_error(opened: Scenario) -> None:
    payload = issue_comment_event(
        comment_id=5, body=SCORE, actor=WRITER, number=2**31, pr_author=AUTHOR, at=opened.tick()
    )
    step = opened.deliver("huge number", "issue_comment", payload)
    assert step.code == 2
    assert "Traceback" not in step.log
    assert "`number` is missing or not an integer in 1..2147483647" in step.log
    assert step.calls == []


def test_a_comment_with_a_lone_surrogate_is_handled(opened: Scenario) -> None:
    body = SCORE + " -- fine \udcff work"
    comment_id = opened.fake.add_comment(PR, "placeholder", WRITER)["id"]
    payload: dict[str, Any] = issue_comment_event(
        comment_id=comment_id,
        body=body,
        actor=WRITER,
        number=PR,
        pr_author=AUTHOR,
        at=opened.tick(),
    )
    path = opened.root / "surrogate.json"
    path.write_text(json.dumps(payload))  # `\udcff` as JSON writes it: an escape
    assert "\\udcff" in path.read_text()
    step = opened.deliver("lone surrogate", "issue_comment", json.loads(path.read_text()))
    assert step.code == 0, step.log
    assert "Traceback" not in step.log
    delivery = f"comment:{comment_id}#0"
    (scored,) = [
        e
        for e in opened.ledger_events()
        if e.get("delivery") == delivery and e["kind"] == "review_scored"
    ]
    assert scored["feedback"] == "fine \ufffd work"


def corrupt_job_file(scenario: Scenario) -> None:
    """Replace the job's file on the data branch with text that is not a job file."""
    from tests.action.scenario import git

    work = scenario.root / "data-work"
    git(scenario.root, "clone", "--quiet", "-b", "rubricate-data", str(scenario.remote), str(work))
    (path,) = list((work / "jobs").rglob(f"{PR}.json"))
    path.write_text("{ not a job file")
    git(work, "commit", "--quiet", "-am", "Break the job file")
    git(work, "push", "--quiet", "origin", "rubricate-data")


def test_a_corrupt_job_file_fails_the_run_with_its_reason_and_a_failing_check(
    opened: Scenario,
) -> None:
    corrupt_job_file(opened)
    opened.fake.pulls[PR] = pull(
        REPO, PR, author=AUTHOR, head_sha=opened.heads[-1], base_sha=opened.base_sha
    )
    checks_before = len(opened.fake.check_runs)
    step = opened.comment(WRITER, SCORE)
    assert step.code == 1
    assert "Traceback" not in step.log
    assert "not a valid job file" in step.log
    assert "configuration error" not in step.log
    new_checks = list(opened.fake.check_runs.values())[checks_before:]
    assert [c["conclusion"] for c in new_checks] == ["failure"]
    assert new_checks[0]["head_sha"] == opened.heads[-1]
    assert new_checks[0]["output"]["title"] == "rubricate could not run"
    assert "not a valid job file" in new_checks[0]["output"]["summary"]


def test_a_reply_github_refuses_is_given_up_and_its_comment_still_answered(
    opened: Scenario,
) -> None:
    opened.fake.refusals[f"POST /repos/{REPO}/issues/{PR}/comments"] = 1
    step = opened.comment(WRITER, "/frobnicate")
    assert step.code == 0
    assert "reply refused" in step.log
    comment_id = opened.fake.comments_on(PR)[-1]["id"]
    assert f"comment:{comment_id}" in _answered(opened)
    again = opened.comment(WRITER, "/frobnicate", comment_id=comment_id)
    assert again.code == 0
    assert f"POST /repos/{REPO}/issues/{PR}/comments" not in again.calls


def test_a_lost_answer_to_a_reply_never_posts_it_twice(opened: Scenario) -> None:
    opened.fake.lost_answers[f"POST /repos/{REPO}/issues/{PR}/comments"] = 1
    step = opened.comment(WRITER, "/frobnicate")
    assert step.code == 0, step.log
    assert step.calls.count(f"POST /repos/{REPO}/issues/{PR}/comments") == 1
    assert f"GET /repos/{REPO}/issues/{PR}/comments" in step.calls
    replies = [b for b in _replies(opened) if "/frobnicate" in b]
    assert len(replies) == 1


def test_a_re_run_attempt_of_the_opened_event_finds_the_sticky_comment(
    opened: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = opened.env
    monkeypatch.setattr(
        opened, "env", lambda name, path: {**first(name, path), "GITHUB_RUN_ATTEMPT": "2"}
    )
    again = opened.pr_event("opened")
    assert again.code == 0
    assert f"POST /repos/{REPO}/issues/{PR}/comments" not in again.calls
    assert len(_replies(opened)) == 1, "one sticky comment, never a second"
