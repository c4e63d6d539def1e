"""What the shell tells a handler besides the event and the job state (pure: data only)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rubricate.bot.jobstate import JobState
    from rubricate.config import Config
    from rubricate.evidence.report_model import ScoreReport
    from rubricate.rubric.model import Rubric


@dataclass(frozen=True)
class HandlerContext:
    """The inputs of a handler that the shell resolved: config and rubric at the base, and more.

    `report` is the automatic report of the head (PR open, reopen, ready and push events);
    `deadline` the milestone `due_on`, the linked issue's, or creation plus the SLA (closed
    events); `actor_role` the commenter's role from the collaborator-permission endpoint;
    `reverts_pr` the PR a merged revert undoes (else it is read from the PR body), and
    `reverted_job` that PR's job state, which a `disputed` event for it needs.
    `now` is the run's clock; event times always come from GitHub.
    """

    repo: str
    config: Config
    rubric: Rubric
    now: datetime
    actor_role: str = "none"
    report: ScoreReport | None = None
    deadline: datetime | None = None
    run_id: str = ""
    reverts_pr: int | None = None
    reverted_job: JobState | None = None


@dataclass(frozen=True)
class Invocation:
    """Who ran the commands of one comment or review, when, and on what PR state."""

    actor: str
    actor_role: str
    pr_author: str
    at: datetime
    delivery_prefix: str
    pr_open: bool = True
    pr_merged: bool | None = None
    reviewed_sha: str | None = None
