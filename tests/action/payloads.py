"""Small webhook payloads of our own, shaped like GitHub's (the fields the bot reads, and ids)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

REPO = "octo/widgets"


def stamp(at: datetime) -> str:
    """GitHub's timestamp format."""
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def _user(login: str) -> dict[str, Any]:
    return {
        "login": login,
        "id": sum(map(ord, login)),
        "type": "Bot" if login.endswith("[bot]") else "User",
    }


def _repository() -> dict[str, Any]:
    owner, name = REPO.split("/")
    return {
        "id": 600,
        "name": name,
        "full_name": REPO,
        "owner": _user(owner),
        "default_branch": "main",
    }


def pull_request_event(
    action: str,
    *,
    number: int,
    author: str,
    head_sha: str,
    base_sha: str,
    created: datetime,
    at: datetime,
    body: str = "",
    merged: bool = False,
    merged_by: str | None = None,
    milestone_due_on: str | None = None,
) -> dict[str, Any]:
    """A `pull_request` webhook payload."""
    closed = action == "closed"
    pr = {
        "number": number,
        "state": "closed" if closed else "open",
        "title": "Add the widget report",
        "body": body,
        "user": _user(author),
        "draft": False,
        "merged": merged,
        "created_at": stamp(created),
        "updated_at": stamp(at),
        "closed_at": stamp(at) if closed else None,
        "merged_at": stamp(at) if merged else None,
        "merge_commit_sha": None,
        "merged_by": _user(merged_by) if merged_by else None,
        "milestone": {"number": 1, "due_on": milestone_due_on} if milestone_due_on else None,
        "head": {"ref": "feature", "sha": head_sha},
        "base": {"ref": "main", "sha": base_sha},
    }
    sender = merged_by or author
    return {
        "action": action,
        "number": number,
        "pull_request": pr,
        "repository": _repository(),
        "sender": _user(sender),
    }


def issue_comment_event(
    *,
    comment_id: int,
    body: str,
    actor: str,
    number: int,
    pr_author: str,
    at: datetime,
    action: str = "created",
) -> dict[str, Any]:
    """An `issue_comment` webhook payload on a pull request."""
    issue = {
        "number": number,
        "state": "open",
        "user": _user(pr_author),
        "pull_request": {"url": f"https://api.github.com/repos/{REPO}/pulls/{number}"},
    }
    comment = {
        "id": comment_id,
        "body": body,
        "user": _user(actor),
        "created_at": stamp(at),
        "updated_at": stamp(at),
    }
    return {
        "action": action,
        "issue": issue,
        "comment": comment,
        "repository": _repository(),
        "sender": _user(actor),
    }


def review_event(
    *,
    review_id: int,
    body: str,
    actor: str,
    number: int,
    pr_author: str,
    head_sha: str,
    base_sha: str,
    at: datetime,
    dismissed_by: str | None = None,
    dismissed_at: datetime | None = None,
    closed_at: datetime | None = None,
) -> dict[str, Any]:
    """A `pull_request_review` `submitted` webhook payload; `dismissed` when `dismissed_by`
    dismissed the review (then the PR's `updated_at` is `dismissed_at`: GitHub's dismissed
    review carries no `updated_at`, octokit's schema lists none); on a PR closed at
    `closed_at`."""
    review = {
        "id": review_id,
        "node_id": f"PRR_{review_id}",
        "body": body,
        "user": _user(actor),
        "submitted_at": stamp(at),
        "commit_id": head_sha,
        "state": "commented" if dismissed_by is None else "dismissed",
    }
    pr: dict[str, Any] = {
        "number": number,
        "state": "open" if closed_at is None else "closed",
        "user": _user(pr_author),
        "merged": False,
        "merged_at": None,
        "closed_at": None if closed_at is None else stamp(closed_at),
        "head": {"ref": "feature", "sha": head_sha},
        "base": {"ref": "main", "sha": base_sha},
    }
    if dismissed_by is not None:
        pr["updated_at"] = stamp(dismissed_at or at)
    return {
        "action": "submitted" if dismissed_by is None else "dismissed",
        "review": review,
        "pull_request": pr,
        "repository": _repository(),
        "sender": _user(actor if dismissed_by is None else dismissed_by),
    }
