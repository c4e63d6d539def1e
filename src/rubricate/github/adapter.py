"""The PyGithub adapter: each REST call the bot makes, one small method each (shell: network I/O).

PyGithub runs lazily, so building a repository, issue or comment object costs no request; only
the read or write itself does. The client, its retries and the error mapping are in
`rubricate.github.client`. Linked issues are read only in the adapter's own repository.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

from github.GithubObject import NotSet
from github.IssueComment import IssueComment
from github.Repository import Repository

from rubricate.errors import AnswerLost, RoleUnreadable
from rubricate.github.client import (
    ADD_REACTION,
    DEFAULT_TIMEOUT_S,
    GRAPHQL_REACTIONS,
    ArtifactInfo,
    CommentInfo,
    GitHubError,
    IssueInfo,
    OpenPull,
    PullSummary,
    api_call,
    api_call_or_none,
    check_digest,
    closed_since,
    connect,
    download_artifact,
    named_artifact,
    open_pull,
    pull_summary,
    role_from_permission,
    utc,
)
from rubricate.gitnames import is_full_name
from rubricate.redaction import redact_tokens

if TYPE_CHECKING:
    from github import Github
    from rubricate.bot.visible import IssueRef

__all__ = [
    "ADD_REACTION",
    "GRAPHQL_REACTIONS",
    "WRITES",
    "ArtifactInfo",
    "CommentInfo",
    "GitHubAdapter",
    "GitHubError",
    "IssueInfo",
    "OpenPull",
    "PullSummary",
    "connect",
    "role_from_permission",
]


WRITES = frozenset(
    {
        "create_check_run",
        "create_comment",
        "edit_comment",
        "react",
        "react_to_node",
        "set_status",
        "update_check_run",
    }
)
"""The adapter's methods that make a content-creating request (anything but a read), one each:
what an App installation's pace of writes counts (`rubricate.serve.write_pace`). Every other
method only reads."""


class GitHubAdapter:
    """The REST calls of one repository (linked issues too are read only there)."""

    def __init__(self, client: Github, repository: str, *, bot_login: str) -> None:
        self._client = client
        self.repository = repository
        self.bot_login = bot_login
        self._repo: Repository = client.get_repo(repository)
        self._base = f"/repos/{repository}"

    def collaborator_role(self, login: str) -> str:
        """The user's role from the collaborator-permission endpoint; `RoleUnreadable` when it
        answers 404 (no such user, or a token that cannot see collaborators) or not with a
        permission object."""
        path = f"{self._base}/collaborators/{quote(login, safe='')}/permission"
        found = api_call_or_none(
            f"GET {path}", lambda: self._client.requester.requestJsonAndCheck("GET", path)
        )
        if found is None:
            raise RoleUnreadable(f"GET {path} answered 404 Not Found")
        if not isinstance(found[1], dict) or "permission" not in found[1]:
            raise RoleUnreadable(f"GET {path} answered with no permission object")
        return role_from_permission(found[1])

    def issue(self, ref: IssueRef) -> IssueInfo | None:
        """A linked issue of this repository: title, body and milestone; None when it does not
        exist, or is in another repository (never read: it must not set a spec or deadline)."""
        if ref.repo.lower() != self.repository.lower():
            return None
        issue = self._repo.get_issue(ref.number)
        title = api_call_or_none(f"GET /repos/{ref.repo}/issues/{ref.number}", lambda: issue.title)
        if title is None:
            return None
        due = issue.milestone.due_on if issue.milestone is not None else None
        return IssueInfo(ref, title, issue.body or "", utc(due))

    def pull(self, number: int) -> dict[str, Any]:
        """The PR as the REST API returns it (for events whose payload lacks it)."""
        pull = self._repo.get_pull(number)
        return dict(api_call(f"GET {self._base}/pulls/{number}", lambda: pull.raw_data))

    def pull_or_none(self, number: int) -> dict[str, Any] | None:
        """The PR, or None when the number names no PR of this repository."""
        pull = self._repo.get_pull(number)
        found = api_call_or_none(f"GET {self._base}/pulls/{number}", lambda: pull.raw_data)
        return None if found is None else dict(found)

    def comment(self, comment_id: int) -> CommentInfo | None:
        """One issue comment by id; None when it was deleted."""
        comment = self._comment(comment_id)
        what = f"GET {self._base}/issues/comments/{comment_id}"
        return api_call_or_none(
            what, lambda: CommentInfo(comment.id, comment.body or "", comment.user.login)
        )

    def find_sticky(self, pr: int, marker: str) -> CommentInfo | None:
        """The first comment on the PR holding `marker` and written by our own login."""
        comments = self._repo.get_issue(pr).get_comments()
        return api_call(
            f"GET {self._base}/issues/{pr}/comments", lambda: self._first_sticky(comments, marker)
        )

    def _first_sticky(self, comments: Iterable[IssueComment], marker: str) -> CommentInfo | None:
        for comment in comments:
            if comment.user.login == self.bot_login and marker in (comment.body or ""):
                return CommentInfo(comment.id, comment.body or "", comment.user.login)
        return None

    def create_comment(self, pr: int, body: str, marker: str = "") -> int:
        """Post a comment on the PR; return its id. Each comment carries a hidden marker (a
        unique one when none is given). When the answer to the POST is lost, the comment is
        looked for by its marker and our login; a POST is never sent twice: when the comment is
        not listed, `AnswerLost` says so and a re-run (which looks first) decides."""
        if not marker or marker not in body:
            marker = f"<!-- rubricate:post {uuid.uuid4().hex} -->"
            body = f"{body}\n{marker}"
        issue = self._repo.get_issue(pr)
        what = f"POST {self._base}/issues/{pr}/comments"
        try:
            return api_call(what, lambda: int(issue.create_comment(body).id))
        except AnswerLost as lost:
            found = self.find_sticky(pr, marker)
            if found is not None:
                return found.id
            raise AnswerLost(
                f"{lost}; the comment is not listed on #{pr}, so it was not posted again "
                "(a re-run looks for it first)"
            ) from None

    def edit_comment(self, comment_id: int, body: str) -> bool:
        """Replace a comment's body; False when the comment is gone."""
        comment = self._comment(comment_id)

        def edit() -> bool:
            comment.edit(body)
            return True

        return (
            api_call_or_none(f"PATCH {self._base}/issues/comments/{comment_id}", edit) is not None
        )

    def create_check_run(
        self,
        head_sha: str,
        name: str,
        conclusion: str,
        output: dict[str, Any],
        details_url: str | None,
        external_id: str | None = None,
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
                external_id=external_id or NotSet,
            )
            return int(run.id)

        return api_call(f"POST {self._base}/check-runs", create)

    def find_check_run(self, head_sha: str, name: str, external_id: str) -> int | None:
        """The newest check run called `name` on the head with this external id, else None."""
        path = f"{self._base}/commits/{head_sha}/check-runs"
        query = {"check_name": name, "filter": "all", "per_page": 100}
        requester = self._client.requester
        _, data = api_call(f"GET {path}", lambda: requester.requestJsonAndCheck("GET", path, query))
        runs = (data or {}).get("check_runs") or []
        found = [int(run["id"]) for run in runs if run.get("external_id") == external_id]
        return max(found, default=None)

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

        return api_call_or_none(f"PATCH {self._base}/check-runs/{check_run_id}", edit) is not None

    def commit_verification(self, sha: str) -> tuple[bool, str]:
        """Whether GitHub verified a commit's signature, and its reason (`unsigned`, `valid`...)."""
        commit = self._repo.get_commit(sha)
        data = api_call(f"GET {self._base}/commits/{sha}", lambda: commit.raw_data)
        inner = data.get("commit") if isinstance(data, dict) else None
        verification = inner.get("verification") if isinstance(inner, dict) else None
        if not isinstance(verification, dict):
            return False, "unknown"
        reason = redact_tokens(str(verification.get("reason") or "unknown"))[:100]  # server text
        return verification.get("verified") is True, reason

    def set_status(
        self, sha: str, state: str, description: str, context: str, target_url: str | None
    ) -> None:
        """Set a commit status on a SHA; an answer that is not the status set is an error."""
        commit = self._repo.get_commit(sha)
        what = f"POST {self._base}/statuses/{sha}"
        created = api_call(
            what,
            lambda: (
                commit.create_status(
                    state=state,
                    description=description[:140],
                    context=context,
                    target_url=target_url or NotSet,
                ).raw_data
            ),
        )
        if not isinstance(created, dict) or created.get("state") != state:
            raise GitHubError(f"GitHub API: {what} answered without the status: not set")

    def latest_status(self, sha: str, context: str) -> tuple[str, str] | None:
        """The state and description of the commit's newest status of `context`, else None."""
        path = f"{self._base}/commits/{sha}/statuses"
        requester = self._client.requester
        _, data = api_call(
            f"GET {path}", lambda: requester.requestJsonAndCheck("GET", path, {"per_page": 100})
        )
        for status in data or []:  # newest first
            if status.get("context") == context:
                return str(status.get("state")), str(status.get("description") or "")
        return None

    def react(self, comment_id: int, content: str) -> None:
        """Add a reaction to an issue comment (GitHub ignores a repeat)."""
        comment = self._comment(comment_id)
        api_call(
            f"POST {self._base}/issues/comments/{comment_id}/reactions",
            lambda: comment.create_reaction(content),
        )

    def react_to_node(self, node_id: str, content: str) -> None:
        """React to any reactable GraphQL node (a PR review has no REST reactions endpoint)."""
        variables = {"subject": node_id, "content": GRAPHQL_REACTIONS[content]}
        requester = self._client.requester
        api_call(
            "POST /graphql addReaction", lambda: requester.graphql_query(ADD_REACTION, variables)
        )

    def closed_pulls(self, since: datetime) -> list[PullSummary]:
        """Closed PRs updated at or after `since`, newest first."""
        pulls = self._repo.get_pulls(state="closed", sort="updated", direction="desc")
        return api_call(f"GET {self._base}/pulls?state=closed", lambda: closed_since(pulls, since))

    def open_pulls(self) -> list[OpenPull]:
        """The repository's open PRs, as the list gives them (no request per PR)."""
        pulls = self._repo.get_pulls(state="open")
        return api_call(f"GET {self._base}/pulls?state=open", lambda: [open_pull(p) for p in pulls])

    def pull_summary(self, number: int) -> PullSummary | None:
        """One PR as catch-up reads it; None when the number names no PR of this repository."""
        path = f"GET {self._base}/pulls/{number}"
        return api_call_or_none(path, lambda: pull_summary(self._repo.get_pull(number)))

    def run_artifact(self, run_id: int, name: str) -> ArtifactInfo | None:
        """The artifact called `name` of a workflow run; None when the run has none."""
        path = f"{self._base}/actions/runs/{run_id}/artifacts"
        query = {"name": name, "per_page": 100}
        requester = self._client.requester
        _, data = api_call(f"GET {path}", lambda: requester.requestJsonAndCheck("GET", path, query))
        return named_artifact(data, name)

    def artifact_zip(self, artifact: ArtifactInfo, max_bytes: int) -> bytes:
        """The artifact's zip, fetched from the signed URL GitHub redirects to (no token sent)."""
        path = f"{self._base}/actions/artifacts/{artifact.id}/zip"
        requester = self._client.requester
        headers, _ = api_call(f"GET {path}", lambda: requester.requestJsonAndCheck("GET", path))
        allow_http = requester.scheme == "http"
        data = api_call(
            f"download of artifact {artifact.id}",
            lambda: download_artifact(
                headers.get("location"), max_bytes, timeout=DEFAULT_TIMEOUT_S, allow_http=allow_http
            ),
        )
        check_digest(data, artifact.digest)
        return data

    def _comment(self, comment_id: int) -> IssueComment:
        """A lazy comment object: building it costs no request."""
        return self._repo.get_issue(1).get_comment(comment_id)


def commit_verifier(remote: str, token: str | None) -> Callable[[str], tuple[bool, str]] | None:
    """GitHub's word on a commit's signature for the repository of `remote` (else
    `GITHUB_REPOSITORY`), when a token (else `GITHUB_TOKEN`) is known; None otherwise."""
    token = token or os.environ.get("GITHUB_TOKEN")
    server = urlsplit(os.environ.get("GITHUB_SERVER_URL", "https://github.com")).hostname
    parts = urlsplit(remote)
    own = parts.path.strip("/").removesuffix(".git") if parts.hostname == server else None
    repository = own or os.environ.get("GITHUB_REPOSITORY")
    if not token or not repository or not is_full_name(repository):
        return None
    api_url = os.environ.get("GITHUB_API_URL", "https://api.github.com")
    return GitHubAdapter(connect(token, api_url), repository, bot_login="").commit_verification
