"""The webhook payloads the bot acts on, parsed (pure: a dict in, a frozen event out).

`parse_event` turns a webhook payload into the event the bot acts on (commands parsed once,
here), or `Ignored(reason)`; a payload that lacks a field the bot needs raises `PayloadError`.
Also what else a run reads from the payload: the PR's base and head, the default branch, and
the spec text of linked issues. Which events and actions are handled: DESIGN.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any, Protocol

from rubricate.bot.commands import parse_commands
from rubricate.bot.events import (
    BotEvent,
    CommentEvent,
    GradersEvent,
    GradersRun,
    Ignored,
    JobEvent,
    MergeGroupEvent,
    PullRequestEvent,
    ReviewEvent,
)
from rubricate.bot.merge_queue import parse_merge_group
from rubricate.bot.view_state import PullState
from rubricate.bot.visible import without_lone_surrogates
from rubricate.errors import PayloadError as PayloadError
from rubricate.gitnames import ref_error, sha_error
from rubricate.ledger.event import parse_time

PR_EVENTS = ("pull_request", "pull_request_target")
PR_ACTIONS = ("opened", "reopened", "ready_for_review", "synchronize", "closed", "edited")
REVIEW_ACTIONS = ("submitted", "dismissed")
GRADERS_TRIGGER = "pull_request"
_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
RETARGET, MAX_PR = "edited", 2**31 - 1  # an edit is handled when it retargets; the ledger's limit


def parse_event(
    event_name: str, payload: Mapping[str, Any]
) -> BotEvent | GradersRun | MergeGroupEvent | Ignored:
    """The typed event the bot acts on, or `Ignored(reason)`."""
    payload = without_lone_surrogates(payload)
    action = payload.get("action")
    if event_name == "merge_group":
        return parse_merge_group(payload)
    if event_name == "workflow_run":
        return parse_graders_run(payload)
    handlers = {"issue_comment": _comment, "pull_request_review": _review}
    handler = _pull_request if event_name in PR_EVENTS else handlers.get(event_name)
    if handler is None:
        return Ignored(f"event {event_name!r} is not handled")
    if not isinstance(action, str):
        raise PayloadError(
            f"webhook payload: `action` is missing or not a string; is this a {event_name} event?"
        )
    return handler(payload, action)


def _pull_request(payload: Mapping[str, Any], action: str) -> PullRequestEvent | Ignored:
    if action not in PR_ACTIONS:
        return Ignored(f"pull_request action {action!r} is not handled")
    changes = payload.get("changes")
    if action == RETARGET and not (isinstance(changes, Mapping) and "base" in changes):
        return Ignored("pull_request edited without a change of base (title or body only)")
    pr = _mapping(payload, "pull_request")
    event = PullRequestEvent(
        action=action,
        number=_int(pr, "number", MAX_PR),
        author=_str(_mapping(pr, "user"), "login"),
        author_is_bot=is_bot(_mapping(pr, "user")),
        draft=bool(pr.get("draft", False)),
        merged=bool(pr.get("merged", False)) or pr.get("merged_at") is not None,
        head_sha=_git_name(_mapping(pr, "head"), "sha", "head", sha_error),
        base_sha=_git_name(_mapping(pr, "base"), "sha", "base", sha_error),
        base_ref=_git_name(_mapping(pr, "base"), "ref", "base", ref_error),
        title=str(pr.get("title") or ""),
        body=str(pr.get("body") or ""),
        created_at=_time(pr, "created_at"),
        closed_at=_optional_time(pr, "closed_at"),
        merged_at=_optional_time(pr, "merged_at"),
        milestone_due_on=_milestone_due_on(pr),
        merge_commit_sha=(
            _git_name(pr, "merge_commit_sha", "pull_request", sha_error)
            if pr.get("merge_commit_sha")
            else None
        ),
        repo=_str(_mapping(payload, "repository"), "full_name"),
        updated_at=_optional_time(pr, "updated_at"),
        sender=_optional_login(payload, "sender") or "",
        merged_by=_optional_login(pr, "merged_by"),
    )
    if event.draft and action not in ("closed", RETARGET):  # a draft may move: see on_pr
        return Ignored(f"pull request #{event.number} is a draft")
    return event


def _comment(payload: Mapping[str, Any], action: str) -> CommentEvent | Ignored:
    if action != "created":
        return Ignored(f"issue_comment action {action!r} is not handled (only new comments count)")
    issue = _mapping(payload, "issue")
    if not isinstance(issue.get("pull_request"), Mapping):
        return Ignored(f"comment on plain issue #{issue.get('number')}")
    comment = _mapping(payload, "comment")
    user = _mapping(comment, "user")
    if is_bot(user):
        return Ignored(f"comment by bot {user.get('login')!r}")
    body = str(comment.get("body") or "")
    commands = tuple(parse_commands(body))
    if not commands:
        return Ignored(f"comment {comment.get('id')} on #{issue.get('number')} holds no command")
    return CommentEvent(
        comment_id=_int(comment, "id"),
        body=body,
        actor=_str(user, "login"),
        created_at=_time(comment, "created_at"),
        number=_int(issue, "number", MAX_PR),
        pr_author=_str(_mapping(issue, "user"), "login"),
        repo=_str(_mapping(payload, "repository"), "full_name"),
        pr_open=issue.get("state", "open") == "open",
        pr_merged=_issue_pr_merged(issue),
        commands=commands,
    )


def _review(payload: Mapping[str, Any], action: str) -> ReviewEvent | Ignored:
    if action not in REVIEW_ACTIONS:
        return Ignored(f"pull_request_review action {action!r} is not handled")
    review = _mapping(payload, "review")
    user = _mapping(review, "user")
    if is_bot(user):
        return Ignored(f"review by bot {user.get('login')!r}")
    pr = _mapping(payload, "pull_request")
    body = str(review.get("body") or "")
    commands = tuple(parse_commands(body))
    dismissed = action == "dismissed"  # its body may have been edited since: read the ledger
    if not commands and not dismissed:
        return Ignored(f"review {review.get('id')} on #{pr.get('number')} holds no command")
    head = _git_name(_mapping(pr, "head"), "sha", "head", sha_error)
    submitted = _time(review, "submitted_at")
    return ReviewEvent(
        review_id=_int(review, "id"),
        body=body,
        actor=_str(user, "login"),
        submitted_at=submitted,
        number=_int(pr, "number", MAX_PR),
        pr_author=_str(_mapping(pr, "user"), "login"),
        head_sha=_git_name(review, "commit_id", "review", sha_error)
        if review.get("commit_id")
        else head,
        pr_head_sha=head,
        repo=_str(_mapping(payload, "repository"), "full_name"),
        pr_open=pr.get("state", "open") == "open",
        pr_merged=bool(pr.get("merged", False)) or pr.get("merged_at") is not None,
        commands=commands,
        dismissed_by=(_optional_login(payload, "sender") or "(unknown)") if dismissed else None,
        dismissed_at=_dismissed_at(review, pr, submitted) if dismissed else None,
        pr_closed_at=_optional_time(pr, "closed_at"),
    )


def _dismissed_at(
    review: Mapping[str, Any], pr: Mapping[str, Any], submitted: datetime
) -> datetime:
    """When a review was dismissed: the payload names no such time, so the PR's `updated_at`
    (which GitHub always sends; a dismissal updates the PR), or the review's when it is sent (the
    OpenAPI description lists it as optional; octokit's webhook schema, not at all), whichever
    is later, never before its submission."""
    times = [_optional_time(review, "updated_at"), _optional_time(pr, "updated_at"), submitted]
    return max(t for t in times if t is not None)


def pull_from_payload(event: JobEvent, payload: Mapping[str, Any]) -> PullState | None:
    """The PR's base and head when the event carries them (PR, review and graders events)."""
    if isinstance(event, PullRequestEvent | GradersEvent):
        return PullState(base_sha=event.base_sha, base_ref=event.base_ref, head_sha=event.head_sha)
    if isinstance(event, ReviewEvent):
        base = payload.get("pull_request", {}).get("base", {})
        if base.get("sha"):
            return PullState(
                base_sha=base["sha"], base_ref=base.get("ref", ""), head_sha=event.head_sha
            )
    return None


def default_branch(payload: Mapping[str, Any]) -> str | None:
    """The repository's default branch as the payload names it."""
    repository = payload.get("repository")
    name = repository.get("default_branch") if isinstance(repository, Mapping) else None
    return name if isinstance(name, str) and name else None


class LinkedIssue(Protocol):
    """What the spec needs of a linked issue (the GitHub adapter's `IssueInfo` has it)."""

    @property
    def ref(self) -> object: ...
    @property
    def title(self) -> str: ...
    @property
    def body(self) -> str: ...


def spec_text(issues: Iterable[LinkedIssue]) -> str:
    """The spec: each linked issue's title and body."""
    return "\n\n".join(f"# {i.title} ({i.ref})\n\n{i.body}".strip() for i in issues)


def is_bot(user: Mapping[str, Any]) -> bool:
    """A bot account: a `[bot]` login or `type: Bot`."""
    return str(user.get("login", "")).endswith("[bot]") or user.get("type") == "Bot"


def _issue_pr_merged(issue: Mapping[str, Any]) -> bool | None:
    link = issue.get("pull_request")
    known = isinstance(link, Mapping) and "merged_at" in link
    return link["merged_at"] is not None if known else None  # type: ignore[index]


def _milestone_due_on(pr: Mapping[str, Any]) -> datetime | None:
    milestone = pr.get("milestone")
    return _optional_time(milestone, "due_on") if isinstance(milestone, Mapping) else None


def _optional_login(data: Mapping[str, Any], key: str) -> str | None:
    user = data.get(key)
    return str(user["login"]) if isinstance(user, Mapping) and user.get("login") else None


def _mapping(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = data.get(key)
    if not isinstance(value, Mapping):
        raise PayloadError(f"webhook payload: `{key}` is missing or not an object")
    return value


def _str(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise PayloadError(f"webhook payload: `{key}` is missing or not a string")
    return value


def _git_name(
    data: Mapping[str, Any], key: str, where: str, error: Callable[[object, str], str | None]
) -> str:
    """A SHA or ref that git can never mistake for an option, else a `PayloadError`."""
    value = _str(data, key)
    problem = error(value, f"webhook payload: `{where}.{key}`")
    if problem:
        raise PayloadError(problem)
    return value


def _int(data: Mapping[str, Any], key: str, high: int = 2**63 - 1, where: str = "") -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= high:
        raise PayloadError(
            f"webhook payload: `{where}{key}` is missing or not an integer in 1..{high}"
        )
    return value


def _time(data: Mapping[str, Any], key: str) -> datetime:
    value = _optional_time(data, key)
    if value is None:
        raise PayloadError(f"webhook payload: `{key}` is missing")
    return value


def _optional_time(data: Mapping[str, Any], key: str) -> datetime | None:
    value = data.get(key)
    if value is None:
        return None
    try:
        return parse_time(str(value))
    except ValueError:
        raise PayloadError(f"webhook payload: `{key}` is not an RFC 3339 time: {value!r}") from None


def parse_graders_run(payload: Mapping[str, Any]) -> GradersRun | Ignored:
    """The completed graders run of a `workflow_run` payload, or why it is ignored."""
    action = payload.get("action")
    if not isinstance(action, str):
        raise PayloadError(
            "webhook payload: `action` is missing or not a string; is this a workflow_run event?"
        )
    if action != "completed":
        return Ignored(f"workflow_run action {action!r} is not handled (only completed runs)")
    run = payload.get("workflow_run")
    if not isinstance(run, Mapping):
        raise PayloadError("webhook payload: `workflow_run` is missing or not an object")
    trigger = run.get("event")
    if trigger != GRADERS_TRIGGER:
        return Ignored(f"workflow_run of a {trigger!r} run: graders hand off pull_request runs")
    head_sha = str(run.get("head_sha") or "")
    if not _SHA.fullmatch(head_sha):
        raise PayloadError("webhook payload: `workflow_run.head_sha` is not a commit SHA")
    return GradersRun(
        run_id=_int(run, "id", where="workflow_run."),
        repo=_full_name(payload.get("repository")),
        head_sha=head_sha,
        conclusion=str(run.get("conclusion") or "none"),
        workflow=str(run.get("name") or ""),
        actor=_optional_login(run, "triggering_actor") or _optional_login(run, "actor") or "",
        at=_time(run, "updated_at" if run.get("updated_at") else "created_at"),
        head_repo=_full_name(run.get("head_repository"), required=False),
        pull_numbers=_pull_numbers(run.get("pull_requests")),
    )


def _full_name(repo: Any, *, required: bool = True) -> str:
    name = repo.get("full_name") if isinstance(repo, Mapping) else None
    if isinstance(name, str) and name:
        return name
    if required:
        raise PayloadError("webhook payload: `repository.full_name` is missing")
    return ""


def _pull_numbers(pulls: Any) -> tuple[int, ...]:
    if not isinstance(pulls, list):
        return ()
    numbers = [p.get("number") for p in pulls if isinstance(p, Mapping)]
    return tuple(n for n in numbers if isinstance(n, int) and not isinstance(n, bool))
