"""Odd answers from GitHub through the real PyGithub adapter: a role that cannot be read, a
status answer without the status, a POST whose answer was lost; never a traceback, never a
false set. Against the fake GitHub (checked against GitHub's OpenAPI description) or a bare
`responses` mock where the answer is deliberately not GitHub's shape.
"""

from __future__ import annotations

import re

import pytest
import responses

from rubricate.errors import GitHubError, RoleUnreadable
from rubricate.github.adapter import GitHubAdapter, connect
from tests.action.fake_github import FakeGitHub
from tests.action.payloads import REPO
from tests.action.scenario import PR, TOKEN

API = "https://api.github.com"
SHA = "a" * 40


def _adapter() -> GitHubAdapter:
    return GitHubAdapter(connect(TOKEN, API, retries=0, pace=False), REPO, bot_login="b")


def _url(path: str) -> re.Pattern[str]:
    return re.compile(rf"https://api\.github\.com(?::443)?/repos/{REPO}/{path}$")


def test_a_404_from_the_permission_endpoint_is_an_unreadable_role(
    fake_github: FakeGitHub,
) -> None:
    adapter = GitHubAdapter(
        connect(TOKEN, API, retries=0, pace=False), fake_github.repo, bot_login="b"
    )
    with pytest.raises(RoleUnreadable, match="answered 404"):
        adapter.collaborator_role("stranger")


@pytest.mark.parametrize("body", ["[]", '"write"', "null", "not json at all"])
def test_a_permission_answer_that_is_not_an_object_is_an_unreadable_role(body: str) -> None:
    with responses.RequestsMock() as rsps:
        rsps.add(responses.GET, _url("collaborators/bob/permission"), body=body)
        with pytest.raises(RoleUnreadable, match="no permission object"):
            _adapter().collaborator_role("bob")


@pytest.mark.parametrize("body", ["OK", "", "<html>done</html>", '{"state": "pending"}'])
def test_a_2xx_status_answer_without_the_status_is_not_treated_as_set(body: str) -> None:
    with responses.RequestsMock() as rsps:
        rsps.add(responses.POST, _url(f"statuses/{SHA}"), body=body, status=201)
        with pytest.raises(GitHubError, match=r"answered with(out the status| a body GitHub)"):
            _adapter().set_status(SHA, "success", "v1 approved", "rubricate/approval", None)


def test_the_client_never_resends_a_post_whose_answer_was_lost(fake_github: FakeGitHub) -> None:
    fake_github.lost_answers[f"POST /repos/{REPO}/issues/{PR}/comments"] = 1
    adapter = GitHubAdapter(
        connect(TOKEN, API, retries=3, pace=False), fake_github.repo, bot_login="b"
    )
    body = "hello\n<!-- rubricate:reply comment:1 -->"
    fake_github.bot_login = "b"
    created = adapter.create_comment(PR, body, "<!-- rubricate:reply comment:1 -->")
    assert [c["id"] for c in fake_github.comments_on(PR)] == [created]
    assert fake_github.call_lines().count(f"POST /repos/{REPO}/issues/{PR}/comments") == 1
