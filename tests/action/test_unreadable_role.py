"""A run that cannot read a commenter's role cannot decide: it says so, fails, and a re-run heals.

The permission endpoint's answer here is deliberately not what GitHub's OpenAPI description
allows (that is the attack); every other exchange is still validated against it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import responses

from tests.action.contract import validate_calls
from tests.action.fake_github import FakeGitHub
from tests.action.scenario import PR, WRITER, Scenario

SCORE = "/score spec=4 comp=4 qual=3 ver=3 format=4"


@pytest.fixture
def opened(tmp_path: Path, openapi: Any) -> Iterator[Scenario]:
    """A PR opened on real repositories; the permission answers are left unvalidated."""
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        scenario = Scenario(tmp_path, FakeGitHub(rsps))
        scenario.push({"out/report.json": '{"widgets": ["a"], "total": 1}\n'}, "Add the report")
        assert scenario.pr_event("opened").code == 0
        yield scenario
        if openapi is not None:
            kept = [
                c for c in scenario.fake.calls if not str(c.request.url).endswith("/permission")
            ]
            validate_calls(openapi, kept)


def _scored(scenario: Scenario) -> list[dict[str, Any]]:
    return [e for e in scenario.ledger_events() if e["kind"] == "review_scored"]


@pytest.mark.parametrize("body", ["[]", '[{"permission": "admin"}]', '"write"', "null", "{}"])
def test_a_permission_answer_that_is_not_an_object_fails_the_run_and_a_re_run_heals(
    opened: Scenario, body: str
) -> None:
    opened.fake.permission_answers[WRITER] = body
    first = opened.comment(WRITER, SCORE)
    assert first.code == 1
    assert f"{WRITER}'s role could not be read" in first.log
    assert "/score not applied; re-run this job" in first.log
    assert _scored(opened) == []
    comment_id = opened.fake.comments_on(PR)[-2]["id"]
    del opened.fake.permission_answers[WRITER]
    again = opened.comment(WRITER, SCORE, comment_id=comment_id)
    assert again.code == 0, again.log
    assert [e["actor"] for e in _scored(opened)] == [WRITER]


def test_a_command_that_needs_no_role_is_still_decided(opened: Scenario) -> None:
    opened.fake.permission_answers[WRITER] = "[]"
    step = opened.comment(WRITER, "/frobnicate")
    assert step.code == 0, step.log
