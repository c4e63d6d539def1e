"""The PyGithub client, its retries, how API failures become errors, and what the REST API lists:
closed pull requests, read without a request per PR, and a workflow run's artifacts (shell:
network I/O).

`GET .../actions/artifacts/{id}/zip` answers with a redirect to a short-lived signed URL on
another host. The adapter asks for it through PyGithub's requester (with the token), and the
zip is then fetched here from the signed URL *without* the token, streamed, and cut off as soon
as it passes the cap. A SHA-256 digest, when GitHub lists one, must match the bytes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

import requests
from github.PullRequest import PullRequest
from urllib3.exceptions import ProtocolError

from github import Auth, Github, GithubException, GithubRetry
from rubricate.bot.command_table import ROLE_ORDER
from rubricate.errors import AnswerLost, HandoffRefused
from rubricate.errors import GitHubError as GitHubError
from rubricate.redaction import redact_tokens

if TYPE_CHECKING:
    from rubricate.bot.visible import IssueRef

DEFAULT_TIMEOUT_S = 30
MAX_RATE_LIMIT_WAIT_S = 120
_T = TypeVar("_T")
GRAPHQL_REACTIONS = {"eyes": "EYES", "+1": "THUMBS_UP", "confused": "CONFUSED"}
ADD_REACTION = (
    "mutation($subject: ID!, $content: ReactionContent!) "
    "{ addReaction(input: {subjectId: $subject, content: $content}) { reaction { content } } }"
)
ARTIFACT_CHUNK = 64 * 1024
_PERMISSION_ROLES = {"admin": "admin", "maintain": "maintain", "write": "write", "read": "read"}


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
        _Retry(total=retries, backoff_factor=1.0, max_rate_limit_wait=max_rate_limit_wait)
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


class _Retry(GithubRetry):
    """PyGithub's retries, except that a POST whose answer was lost is never sent again: the
    server may have acted on it (a comment or check run would be duplicated)."""

    def increment(self, method: str | None = None, *args: Any, **kwargs: Any) -> Any:
        """Raise a POST's read error at once; anything else as PyGithub does."""
        error = kwargs.get("error") or (args[2] if len(args) > 2 else None)
        if method == "POST" and error is not None and self._is_read_error(error):
            raise error
        return super().increment(method, *args, **kwargs)


def api_call(what: str, call: Callable[[], _T]) -> _T:
    """Run one call; PyGithub and transport errors become a `GitHubError` naming the call."""
    try:
        return call()
    except GithubException as exc:
        raise GitHubError(f"GitHub API: {what} failed ({exc.status}): {_message(exc)}") from None
    except requests.RequestException as exc:
        reason = _transport_reason(exc)
        error = AnswerLost if answer_lost(exc) else GitHubError
        raise error(f"GitHub API: {what} failed: {reason} ({type(exc).__name__})") from None
    except (TypeError, KeyError, AttributeError, ValueError) as exc:  # PyGithub on a bad body
        shape = f"{type(exc).__name__}: {str(exc)[:100]}"
        raise GitHubError(
            f"GitHub API: {what} answered with a body GitHub never sends ({shape})"
        ) from None


def answer_lost(exc: requests.RequestException) -> bool:
    """True when the request was sent and its answer never came: a read timeout, or the
    connection dropped while waiting (the server may have acted)."""
    if isinstance(exc, requests.Timeout):
        return not isinstance(exc, requests.ConnectTimeout)
    cause = exc.args[0] if exc.args else None
    return isinstance(exc, requests.ConnectionError) and isinstance(cause, ProtocolError)


def _transport_reason(exc: requests.RequestException) -> str:
    """What went wrong below HTTP, in words."""
    if isinstance(exc, requests.Timeout):
        return "the server did not answer in time"
    if isinstance(exc, requests.ConnectionError):
        return "could not connect to the server"
    if isinstance(exc, requests.exceptions.RetryError):
        return "gave up after repeated server errors"
    return "the request failed"


def api_call_or_none(what: str, call: Callable[[], _T]) -> _T | None:
    """Like `api_call`, but a 404 gives None."""
    try:
        return api_call(what, call)
    except GitHubError as exc:
        if "(404)" in str(exc):
            return None
        raise


def _message(exc: GithubException) -> str:
    """The API's message (a server can echo what it was sent, a token included: masked)."""
    data = exc.data if isinstance(exc.data, dict) else {}
    return redact_tokens(str(data.get("message") or exc.message or "no message"))[:300]


def role_from_permission(data: dict[str, Any]) -> str:
    """The role from a permission response: a base `role_name`, else `permission`."""
    role_name = str(data.get("role_name") or "")
    if role_name in ROLE_ORDER:
        return role_name
    return _PERMISSION_ROLES.get(str(data.get("permission") or ""), "none")


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


@dataclass(frozen=True)
class PullSummary:
    """A closed PR as listed by the API (enough for catch-up)."""

    number: int
    author: str
    title: str
    body: str
    head_sha: str
    created_at: datetime | None
    closed_at: datetime | None
    merged_at: datetime | None
    milestone_due_on: datetime | None


@dataclass(frozen=True)
class OpenPull:
    """An open PR as listed by the API: what a `pull_request` delivery for its head carries."""

    number: int
    author: str
    author_type: str
    draft: bool
    head_sha: str
    head_ref: str
    base_sha: str
    base_ref: str
    title: str
    body: str
    created_at: datetime | None
    updated_at: datetime | None
    milestone_due_on: datetime | None
    repo: str
    default_branch: str


def open_pull(pull: PullRequest) -> OpenPull:
    """Read only attributes the list response carries, so no per-PR request is made."""
    base_repo = pull.base.repo
    return OpenPull(
        number=pull.number,
        author=pull.user.login if pull.user else "",
        author_type=pull.user.type if pull.user else "User",
        draft=bool(pull.draft),
        head_sha=pull.head.sha,
        head_ref=pull.head.ref,
        base_sha=pull.base.sha,
        base_ref=pull.base.ref,
        title=pull.title or "",
        body=pull.body or "",
        created_at=utc(pull.created_at),
        updated_at=utc(pull.updated_at),
        milestone_due_on=utc(pull.milestone.due_on) if pull.milestone else None,
        repo=base_repo.full_name,
        default_branch=base_repo.default_branch,
    )


def closed_since(pulls: Iterable[PullRequest], since: datetime) -> list[PullSummary]:
    """The PRs (newest update first) updated at or after `since`."""
    found: list[PullSummary] = []
    for pull in pulls:
        updated = utc(pull.updated_at)
        if updated is not None and updated < since:
            break
        found.append(pull_summary(pull))
    return found


def pull_summary(pull: PullRequest) -> PullSummary:
    """Read only attributes the list response carries, so no per-PR request is made."""
    return PullSummary(
        number=pull.number,
        author=pull.user.login if pull.user else "",
        title=pull.title or "",
        body=pull.body or "",
        head_sha=pull.head.sha,
        created_at=utc(pull.created_at),
        closed_at=utc(pull.closed_at),
        merged_at=utc(pull.merged_at),
        milestone_due_on=utc(pull.milestone.due_on) if pull.milestone else None,
    )


def utc(value: datetime | None) -> datetime | None:
    """An aware UTC datetime (PyGithub gives naive UTC on some versions)."""
    if value is None:
        return None
    return (
        value.replace(tzinfo=timezone.utc)
        if value.tzinfo is None
        else value.astimezone(timezone.utc)
    )


@dataclass(frozen=True)
class ArtifactInfo:
    """An artifact of a workflow run, as the REST API lists it."""

    id: int
    name: str
    size_in_bytes: int
    expired: bool
    digest: str | None = None


def named_artifact(listing: Any, name: str) -> ArtifactInfo | None:
    """The newest unexpired artifact called `name` in a `list-workflow-run-artifacts` answer."""
    items = listing.get("artifacts") if isinstance(listing, Mapping) else None
    found = [
        _info(item)
        for item in items or ()
        if isinstance(item, Mapping)
        and item.get("name") == name
        and isinstance(item.get("id"), int)
    ]
    found.sort(key=lambda info: (not info.expired, info.id))
    return found[-1] if found else None


def _info(item: Mapping[str, Any]) -> ArtifactInfo:
    digest = item.get("digest")
    return ArtifactInfo(
        id=int(item["id"]),
        name=str(item.get("name") or ""),
        size_in_bytes=int(item.get("size_in_bytes") or 0),
        expired=bool(item.get("expired")),
        digest=digest if isinstance(digest, str) and digest else None,
    )


def download_artifact(
    location: str | None, max_bytes: int, *, timeout: float, allow_http: bool = False
) -> bytes:
    """The bytes behind a signed download URL (no token sent), refused past `max_bytes`."""
    if not location:
        raise HandoffRefused("GitHub gave no download location for the artifact")
    scheme = urlsplit(location).scheme
    if scheme != "https" and not (allow_http and scheme == "http"):
        raise HandoffRefused(f"the artifact's download URL is not https ({scheme or 'none'})")
    with requests.get(location, stream=True, timeout=timeout) as response:
        response.raise_for_status()
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > max_bytes:
            raise HandoffRefused(f"the artifact is {declared} bytes, over the cap of {max_bytes}")
        return _capped(response, max_bytes)


def _capped(response: requests.Response, max_bytes: int) -> bytes:
    chunks: list[bytes] = []
    total = 0
    for chunk in response.iter_content(ARTIFACT_CHUNK):
        total += len(chunk)
        if total > max_bytes:
            raise HandoffRefused(f"the artifact is over the cap of {max_bytes} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def check_digest(data: bytes, digest: str | None) -> None:
    """Refuse bytes that do not match the artifact's `sha256:<hex>` digest (when it has one)."""
    if digest is None or not digest.startswith("sha256:"):
        return
    actual = hashlib.sha256(data).hexdigest()
    if actual != digest.removeprefix("sha256:").lower():
        raise HandoffRefused("the downloaded artifact does not match its digest")
