"""The PyGithub adapter: each REST call the bot makes, one small method each (shell: network I/O).

PyGithub runs lazily, so building a repository, issue or comment object costs no request; only
the read or write itself does. Retries back off, and the wait for a rate-limit reset is capped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar
from urllib.parse import quote

import requests
from github.GithubObject import NotSet
from github.IssueComment import IssueComment
from github.Repository import Repository

from github import Auth, Github, GithubException, GithubRetry
from rubricate.config import ROLE_ORDER
from rubricate.errors import RubricateError
from rubricate.github import artifacts
from rubricate.github.artifacts import ArtifactInfo
from rubricate.github.closing import IssueRef
from rubricate.github.pulls import PullSummary, closed_since, utc

__all__ = [
    "ArtifactInfo",
    "CommentInfo",
    "GitHubAdapter",
    "GitHubError",
    "IssueInfo",
    "PullSummary",
    "connect",
]
DEFAULT_TIMEOUT_S = 30
MAX_RATE_LIMIT_WAIT_S = 120
_T = TypeVar("_T")
GRAPHQL_REACTIONS = {"eyes": "EYES", "+1": "THUMBS_UP", "confused": "CONFUSED"}
ADD_REACTION = (
    "mutation($subject: ID!, $content: ReactionContent!) "
    "{ addReaction(input: {subjectId: $subject, content: $content}) { reaction { content } } }"
)
_PERMISSION_ROLES = {"admin": "admin", "maintain": "maintain", "write": "write", "read": "read"}


class GitHubError(RubricateError):
    """A GitHub API call failed; the run failed (exit 1), never a silent pass."""

    exit_code = 1


@dataclass(frozen=True)
class CommentInfo:
    """An issue comment: its id, body and author login."""

    id: int
    body: str
    author: str


@dataclass(frozen=True)
class IssueInfo:
    """A linked issue as the spec: its text and its milestone's due date."""

    ref: IssueRef
    title: str
    body: str
    milestone_due_on: datetime | None


def connect(
    token: str | None,
    api_url: str,
    *,
    timeout: int = DEFAULT_TIMEOUT_S,
    retries: int = 4,
    max_rate_limit_wait: float = MAX_RATE_LIMIT_WAIT_S,
    pace: bool = True,
) -> Github:
    """A lazy PyGithub client on `api_url` with backoff retries and a capped rate-limit wait.

    `pace` keeps PyGithub's spacing of requests (0.25 s) and of writes (1 s), as GitHub asks
    of integrations to avoid secondary rate limits; tests against a fake server turn it off.
    """
    retry = (
        GithubRetry(total=retries, backoff_factor=1.0, max_rate_limit_wait=max_rate_limit_wait)
        if retries > 0
        else None
    )
    options: dict[str, Any] = {
        "auth": Auth.Token(token) if token else None,
        "base_url": api_url,
        "timeout": timeout,
        "retry": retry,
        "lazy": True,
        "user_agent": "rubricate",
    }
    if not pace:
        options.update(seconds_between_requests=None, seconds_between_writes=None)
    return Github(**options)


def _api(what: str, call: Callable[[], _T]) -> _T:
    """Run one call; PyGithub and transport errors become a `GitHubError` naming the call."""
    try:
        return call()
    except GithubException as exc:
        raise GitHubError(f"GitHub API: {what} failed ({exc.status}): {_message(exc)}") from None
    except requests.RequestException as exc:
        raise GitHubError(f"GitHub API: {what} failed: {type(exc).__name__}") from None


def _api_or_none(what: str, call: Callable[[], _T]) -> _T | None:
    """Like `_api`, but a 404 gives None."""
    try:
        return _api(what, call)
    except GitHubError as exc:
        if "(404)" in str(exc):
            return None
        raise


def _message(exc: GithubException) -> str:
    data = exc.data if isinstance(exc.data, dict) else {}
    return str(data.get("message") or exc.message or "no message")[:300]


class GitHubAdapter:
    """The REST calls of one repository, plus reads of linked issues in any repository."""

    def __init__(self, client: Github, repository: str, *, bot_login: str) -> None:
        self._client = client
        self.repository = repository
        self.bot_login = bot_login
        self._repo: Repository = client.get_repo(repository)
        self._base = f"/repos/{repository}"

    def collaborator_role(self, login: str) -> str:
        """The user's role from the collaborator-permission endpoint (`none` when not found)."""
        path = f"{self._base}/collaborators/{quote(login, safe='')}/permission"
        found = _api_or_none(
            f"GET {path}", lambda: self._client.requester.requestJsonAndCheck("GET", path)
        )
        return "none" if found is None else role_from_permission(found[1])

    def issue(self, ref: IssueRef) -> IssueInfo | None:
        """A linked issue's title, body and milestone; None when it does not exist."""
        repo = self._repo if ref.repo == self.repository else self._client.get_repo(ref.repo)
        issue = repo.get_issue(ref.number)
        title = _api_or_none(f"GET /repos/{ref.repo}/issues/{ref.number}", lambda: issue.title)
        if title is None:
            return None
        due = issue.milestone.due_on if issue.milestone is not None else None
        return IssueInfo(ref, title, issue.body or "", utc(due))

    def pull(self, number: int) -> dict[str, Any]:
        """The PR as the REST API returns it (for events whose payload lacks it)."""
        pull = self._repo.get_pull(number)
        return dict(_api(f"GET {self._base}/pulls/{number}", lambda: pull.raw_data))

    def pull_or_none(self, number: int) -> dict[str, Any] | None:
        """The PR, or None when the number names no PR of this repository."""
        pull = self._repo.get_pull(number)
        found = _api_or_none(f"GET {self._base}/pulls/{number}", lambda: pull.raw_data)
        return None if found is None else dict(found)

    def comment(self, comment_id: int) -> CommentInfo | None:
        """One issue comment by id; None when it was deleted."""
        comment = self._comment(comment_id)
        what = f"GET {self._base}/issues/comments/{comment_id}"
        return _api_or_none(
            what, lambda: CommentInfo(comment.id, comment.body or "", comment.user.login)
        )

    def find_sticky(self, pr: int, marker: str) -> CommentInfo | None:
        """The first comment on the PR holding `marker` and written by our own login."""
        comments = self._repo.get_issue(pr).get_comments()
        return _api(
            f"GET {self._base}/issues/{pr}/comments", lambda: self._first_sticky(comments, marker)
        )

    def _first_sticky(self, comments: Iterable[IssueComment], marker: str) -> CommentInfo | None:
        for comment in comments:
            if comment.user.login == self.bot_login and marker in (comment.body or ""):
                return CommentInfo(comment.id, comment.body or "", comment.user.login)
        return None

    def create_comment(self, pr: int, body: str) -> int:
        """Post a comment on the PR; return its id."""
        issue = self._repo.get_issue(pr)
        return _api(
            f"POST {self._base}/issues/{pr}/comments", lambda: int(issue.create_comment(body).id)
        )

    def edit_comment(self, comment_id: int, body: str) -> bool:
        """Replace a comment's body; False when the comment is gone."""
        comment = self._comment(comment_id)

        def edit() -> bool:
            comment.edit(body)
            return True

        return _api_or_none(f"PATCH {self._base}/issues/comments/{comment_id}", edit) is not None

    def create_check_run(
        self,
        head_sha: str,
        name: str,
        conclusion: str,
        output: dict[str, Any],
        details_url: str | None,
    ) -> int:
        """Create a completed check run; return its id."""

        def create() -> int:
            run = self._repo.create_check_run(
                name=name,
                head_sha=head_sha,
                status="completed",
                conclusion=conclusion,
                output=output,
                details_url=details_url or NotSet,
            )
            return int(run.id)

        return _api(f"POST {self._base}/check-runs", create)

    def update_check_run(
        self, check_run_id: int, output: dict[str, Any], conclusion: str | None = None
    ) -> bool:
        """Update a check run's output (annotations given are appended); False when it is gone."""
        run = self._repo.get_check_run(check_run_id)

        def edit() -> bool:
            if conclusion:
                run.edit(output=output, status="completed", conclusion=conclusion)
            else:
                run.edit(output=output)
            return True

        return _api_or_none(f"PATCH {self._base}/check-runs/{check_run_id}", edit) is not None

    def set_status(
        self, sha: str, state: str, description: str, context: str, target_url: str | None
    ) -> None:
        """Set a commit status on a SHA."""
        commit = self._repo.get_commit(sha)
        _api(
            f"POST {self._base}/statuses/{sha}",
            lambda: commit.create_status(
                state=state,
                description=description[:140],
                context=context,
                target_url=target_url or NotSet,
            ),
        )

    def react(self, comment_id: int, content: str) -> None:
        """Add a reaction to an issue comment (GitHub ignores a repeat)."""
        comment = self._comment(comment_id)
        _api(
            f"POST {self._base}/issues/comments/{comment_id}/reactions",
            lambda: comment.create_reaction(content),
        )

    def react_to_node(self, node_id: str, content: str) -> None:
        """React to any reactable GraphQL node (a PR review has no REST reactions endpoint)."""
        variables = {"subject": node_id, "content": GRAPHQL_REACTIONS[content]}
        requester = self._client.requester
        _api("POST /graphql addReaction", lambda: requester.graphql_query(ADD_REACTION, variables))

    def closed_pulls(self, since: datetime) -> list[PullSummary]:
        """Closed PRs updated at or after `since`, newest first."""
        pulls = self._repo.get_pulls(state="closed", sort="updated", direction="desc")
        return _api(f"GET {self._base}/pulls?state=closed", lambda: closed_since(pulls, since))

    def run_artifact(self, run_id: int, name: str) -> ArtifactInfo | None:
        """The artifact called `name` of a workflow run; None when the run has none."""
        path = f"{self._base}/actions/runs/{run_id}/artifacts"
        query = {"name": name, "per_page": 100}
        requester = self._client.requester
        _, data = _api(f"GET {path}", lambda: requester.requestJsonAndCheck("GET", path, query))
        return artifacts.named(data, name)

    def artifact_zip(self, artifact: ArtifactInfo, max_bytes: int) -> bytes:
        """The artifact's zip, fetched from the signed URL GitHub redirects to (no token sent)."""
        path = f"{self._base}/actions/artifacts/{artifact.id}/zip"
        requester = self._client.requester
        headers, _ = _api(f"GET {path}", lambda: requester.requestJsonAndCheck("GET", path))
        allow_http = requester.scheme == "http"
        data = _api(
            f"download of artifact {artifact.id}",
            lambda: artifacts.download(
                headers.get("location"), max_bytes, timeout=DEFAULT_TIMEOUT_S, allow_http=allow_http
            ),
        )
        artifacts.check_digest(data, artifact.digest)
        return data

    def _comment(self, comment_id: int) -> IssueComment:
        """A lazy comment object: building it costs no request."""
        return self._repo.get_issue(1).get_comment(comment_id)


def role_from_permission(data: dict[str, Any]) -> str:
    """The role from a permission response: a base `role_name`, else `permission`."""
    role_name = str(data.get("role_name") or "")
    if role_name in ROLE_ORDER:
        return role_name
    return _PERMISSION_ROLES.get(str(data.get("permission") or ""), "none")
