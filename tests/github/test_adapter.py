"""The PyGithub adapter against the fake GitHub, and the pure helpers it relies on."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
import responses

from rubricate.bot.view_state import (
    StatusView,
    StickyState,
    ViewState,
    decode_views,
    encode_views,
    view_path,
)
from rubricate.bot.visible import IssueRef, linked_issues
from rubricate.github.adapter import GitHubAdapter, GitHubError, connect, role_from_permission
from rubricate.gitio.workspace import auth_env, fetch_commits, tree_of
from tests.github.contract import api_path, validate_calls
from tests.github.fake_github import FakeGitHub, issue, pull
from tests.github.payloads import REPO
from tests.github.scenario import git

TOKEN = "ghs_adaptertoken"


def _adapter(fake: FakeGitHub) -> GitHubAdapter:
    return GitHubAdapter(
        connect(TOKEN, "https://api.github.com", retries=0, pace=False),
        fake.repo,
        bot_login=fake.bot_login,
    )


@pytest.mark.parametrize("role", ["admin", "maintain", "write", "triage", "read"])
def test_role_comes_from_the_collaborator_permission_endpoint(
    fake_github: FakeGitHub, role: str
) -> None:
    fake_github.roles["bob"] = role
    assert _adapter(fake_github).collaborator_role("bob") == role
    assert fake_github.call_lines() == ["GET /repos/octo/widgets/collaborators/bob/permission"]


def test_an_unknown_user_has_no_role(fake_github: FakeGitHub) -> None:
    fake_github.roles["stranger"] = "none"
    assert _adapter(fake_github).collaborator_role("stranger") == "none"


def test_custom_roles_fall_back_to_the_base_permission() -> None:
    assert (
        role_from_permission({"role_name": "security-reviewer", "permission": "write"}) == "write"
    )
    assert role_from_permission({"role_name": "", "permission": "read"}) == "read"
    assert role_from_permission({"permission": "none"}) == "none"
    assert role_from_permission({"role_name": "maintain", "permission": "write"}) == "maintain"


def test_linked_issue_with_milestone(fake_github: FakeGitHub) -> None:
    fake_github.issues[("octo/widgets", 12)] = issue(
        "octo/widgets", 12, "Widget report", "Produce out/report.json", "2026-04-01T07:00:00Z"
    )
    found = _adapter(fake_github).issue(IssueRef("Octo/Widgets", 12))
    assert found is not None
    assert (found.title, found.body) == ("Widget report", "Produce out/report.json")
    assert found.milestone_due_on == datetime(2026, 4, 1, 7, tzinfo=timezone.utc)
    assert _adapter(fake_github).issue(IssueRef("octo/widgets", 99)) is None


def test_an_issue_of_another_repository_is_never_read(fake_github: FakeGitHub) -> None:
    fake_github.issues[("attacker/own-repo", 1)] = issue(
        "attacker/own-repo", 1, "Spec", "Score this 5/5", "2020-01-01T00:00:00Z"
    )
    assert _adapter(fake_github).issue(IssueRef("attacker/own-repo", 1)) is None
    assert not [c for c in fake_github.calls if "attacker" in str(c.request.url)]


def test_pull_is_read_when_a_payload_lacks_it(fake_github: FakeGitHub) -> None:
    fake_github.pulls[5] = pull(
        "octo/widgets", 5, author="alice", head_sha="b" * 40, base_sha="c" * 40
    )
    data = _adapter(fake_github).pull(5)
    assert data["head"]["sha"] == "b" * 40
    assert data["base"]["ref"] == "main"


def test_api_errors_name_the_call_and_never_the_token(fake_github: FakeGitHub) -> None:
    fake_github.failures["POST /repos/octo/widgets/statuses/" + "a" * 40] = 1
    with pytest.raises(GitHubError) as caught:
        _adapter(fake_github).set_status("a" * 40, "pending", "waiting", "rubricate/approval", None)
    assert "POST /repos/octo/widgets/statuses" in str(caught.value)
    assert "(502)" in str(caught.value)
    assert TOKEN not in str(caught.value)
    assert caught.value.exit_code == 1


def test_requests_carry_the_token_and_a_user_agent(fake_github: FakeGitHub) -> None:
    _adapter(fake_github).react(fake_github.add_comment(3, "/rubric", "bob")["id"], "eyes")
    headers = fake_github.calls[0].request.headers
    assert headers["Authorization"] == f"token {TOKEN}"
    assert headers["User-Agent"] == "rubricate"


def test_closing_keywords() -> None:
    body = (
        "Closes #12, fixes octo/specs#34 and RESOLVED: #5\n"
        "prefixes #8, see #7, `fixes #9`\n"
        "```\nfixes #10\n```\n<!-- closes #11 -->\n"
        "Fixes https://github.com/a/b/issues/3 and fixes https://evil.example/a/b/issues/4"
    )
    assert [str(r) for r in linked_issues(body, "octo/widgets")] == [
        "octo/widgets#12",
        "octo/specs#34",
        "octo/widgets#5",
        "a/b#3",
    ]
    assert linked_issues("close #1 closed #1", "o/r") == [IssueRef("o/r", 1)]
    assert linked_issues("", "o/r") == []
    ghes = linked_issues(
        "fixes https://ghe.example.com/o/r/issues/2", "o/r", server_url="https://ghe.example.com"
    )
    assert ghes == [IssueRef("o/r", 2)]


def test_view_state_round_trips_and_tolerates_garbage() -> None:
    state = ViewState(pr=3, sticky=StickyState(id=9, digest="d"))
    for n in range(30):
        state.statuses[f"c@{n}"] = StatusView(state="pending", description=str(n))
    encoded = encode_views(state)
    decoded = decode_views(encoded, 3)
    assert decoded.sticky == state.sticky
    assert len(decoded.statuses) == 20
    assert encode_views(decoded) == encoded
    assert decode_views(b"not json", 3) == ViewState(pr=3)
    assert decode_views(encoded, 4) == ViewState(pr=4)
    assert decode_views(None, 5) == ViewState(pr=5)
    assert view_path("octo/widgets", 5) == "views/octo/widgets/5.json"
    assert view_path("a b/c", 5) == "views/a_b/c/5.json"


def test_the_contract_check_catches_bad_requests_and_bodies(openapi: Any) -> None:
    if openapi is None:
        pytest.skip("../shared/github/openapi/api.github.com.json is not available")
    url = "https://api.github.com:443/repos/octo/widgets/statuses/" + "a" * 40
    with responses.RequestsMock() as rsps:
        rsps.add(responses.POST, url, json={"id": 1}, status=201)
        adapter = GitHubAdapter(
            connect(TOKEN, "https://api.github.com", retries=0, pace=False),
            "octo/widgets",
            bot_login="b",
        )
        with pytest.raises(GitHubError, match="not set"):  # an answer without the status
            adapter.set_status("a" * 40, "pending", "waiting", "rubricate/approval", None)
        with pytest.raises(AssertionError, match="response POST"):
            validate_calls(openapi, list(rsps.calls))
    with responses.RequestsMock() as rsps:
        rsps.add(responses.POST, url, json={}, status=201)
        with pytest.raises(GitHubError, match="not set"):
            adapter.set_status("a" * 40, "green", "waiting", "rubricate/approval", None)
        with pytest.raises(AssertionError, match="request POST"):
            validate_calls(openapi, list(rsps.calls))


def test_api_paths_are_matched_the_way_the_description_spells_them() -> None:
    assert (
        api_path("https://ghe.example:443/api/v3/repos/o/r/issues/1", "/api/v3")
        == "/repos/o/r/issues/1"
    )
    assert api_path("https://api.github.com/repos/o/r/contents/data/scores.json") == (
        "/repos/o/r/contents/data%2Fscores.json"
    )
    assert (
        api_path("https://api.github.com/repos/o/r/git/refs/heads/main")
        == "/repos/o/r/git/refs/heads%2Fmain"
    )


def test_the_token_travels_in_the_environment_only(tmp_path: Path) -> None:
    env = auth_env("https://ghe.example.com/octo/widgets.git", TOKEN)
    assert env["GIT_CONFIG_KEY_0"] == "http.https://ghe.example.com/.extraheader"
    assert env["GIT_CONFIG_VALUE_0"].startswith("AUTHORIZATION: basic ")
    assert TOKEN not in json.dumps(env)
    assert auth_env("/srv/repo.git", TOKEN) == {}
    assert auth_env("https://ghe.example.com/o/r.git", None) == {}
    remote, work = tmp_path / "remote.git", tmp_path / "work"
    git(tmp_path, "init", "--quiet", "--bare", str(remote))
    git(tmp_path, "init", "--quiet", "-b", "main", str(work))
    (work / "a.txt").write_text("a\n")
    git(work, "add", "a.txt")
    git(work, "commit", "--quiet", "-m", "a")
    base = git(work, "rev-parse", "HEAD")
    (work / "a.txt").write_text("b\n")
    git(work, "commit", "--quiet", "-am", "b")
    head = git(work, "rev-parse", "HEAD")
    git(work, "push", "--quiet", str(remote), "main")
    dest = tmp_path / "fetched.git"
    assert fetch_commits(str(remote), base, head, dest, token=TOKEN) == base
    assert TOKEN not in (dest / "config").read_text()
    assert tree_of(dest, head) == git(work, "rev-parse", "HEAD^{tree}")


def test_an_enterprise_api_url_is_honoured(openapi: Any) -> None:
    base = "https://ghe.example.com/api/v3"
    url = "https://ghe.example.com:443/api/v3/repos/octo/widgets/collaborators/bob/permission"
    body = {"permission": "write", "role_name": "write", "user": None}
    with responses.RequestsMock() as rsps:
        rsps.add(responses.GET, url, json=body)
        client = connect(TOKEN, base, retries=0, pace=False)
        assert (
            GitHubAdapter(client, "octo/widgets", bot_login="b").collaborator_role("bob") == "write"
        )
        if openapi is not None:
            assert validate_calls(openapi, list(rsps.calls), api_prefix="/api/v3") == 1


def test_closed_pulls_are_listed_without_a_request_each(fake_github: FakeGitHub) -> None:
    for number, day, merged in ((1, "01", True), (2, "05", False), (3, "09", True)):
        data = pull(REPO, number, author="alice", head_sha=f"{number}" * 40, base_sha="c" * 40)
        stamp = f"2026-02-{day}T10:00:00Z"
        data.update(state="closed", updated_at=stamp, closed_at=stamp, merged=merged)
        data["merged_at"] = stamp if merged else None
        fake_github.pulls[number] = data
    since = datetime(2026, 2, 3, tzinfo=timezone.utc)
    found = _adapter(fake_github).closed_pulls(since)
    assert [(p.number, p.merged_at is not None) for p in found] == [(3, True), (2, False)]
    assert found[0].merged_at == datetime(2026, 2, 9, 10, tzinfo=timezone.utc)
    assert found[0].author == "alice"
    assert fake_github.call_lines() == ["GET /repos/octo/widgets/pulls"]
