"""Closed pull requests as listed by the REST API, read without a request per PR (shell)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone

from github.PullRequest import PullRequest


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


def closed_since(pulls: Iterable[PullRequest], since: datetime) -> list[PullSummary]:
    """The PRs (newest update first) updated at or after `since`."""
    found: list[PullSummary] = []
    for pull in pulls:
        updated = utc(pull.updated_at)
        if updated is not None and updated < since:
            break
        found.append(_pull_summary(pull))
    return found


def _pull_summary(pull: PullRequest) -> PullSummary:
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
