"""What a handler receives, as data: the events the bot acts on and their context (pure).

`rubricate.bot.payload` builds the events from webhook payloads; the shell builds the
`GradersEvent` of a graders run it verified and the `HandlerContext` it resolved.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from rubricate.bot.commands import ParseResult
from rubricate.bot.jobstate import JobState
from rubricate.config import Config
from rubricate.evidence.results import CheckResult, ScoreReport
from rubricate.rubric.model import Rubric


@dataclass(frozen=True)
class PullRequestEvent:
    """A pull-request lifecycle event: opened, reopened, ready_for_review, synchronize, closed."""

    action: str
    number: int
    author: str
    author_is_bot: bool
    draft: bool
    merged: bool
    head_sha: str
    base_sha: str
    base_ref: str
    title: str
    body: str
    created_at: datetime
    closed_at: datetime | None
    merged_at: datetime | None
    milestone_due_on: datetime | None
    merge_commit_sha: str | None
    repo: str
    updated_at: datetime | None = None
    sender: str = ""
    merged_by: str | None = None

    @property
    def at(self) -> datetime:
        """The event's own time: merge, close, last update or creation, as it applies."""
        if self.action == "closed":
            return self.merged_at or self.closed_at or self.updated_at or self.created_at
        if self.action == "opened":
            return self.created_at
        return self.updated_at or self.created_at


@dataclass(frozen=True)
class CommentEvent:
    """A new comment on a pull request, with the command attempts parsed from its body."""

    comment_id: int
    body: str
    actor: str
    created_at: datetime
    number: int
    pr_author: str
    repo: str
    pr_open: bool = True
    pr_merged: bool | None = None
    commands: tuple[ParseResult, ...] = ()


@dataclass(frozen=True)
class ReviewEvent:
    """A submitted pull-request review, with the command attempts parsed from its body; or its
    dismissal, by `dismissed_by` at `dismissed_at` (then what it recorded is taken back)."""

    review_id: int
    body: str
    actor: str
    submitted_at: datetime
    number: int
    pr_author: str
    head_sha: str
    repo: str
    pr_open: bool = True
    pr_merged: bool | None = None
    pr_head_sha: str | None = None
    commands: tuple[ParseResult, ...] = ()
    dismissed_by: str | None = None
    dismissed_at: datetime | None = None
    pr_closed_at: datetime | None = None

    @property
    def dismissed(self) -> bool:
        """True for the review's dismissal, not its submission."""
        return self.dismissed_by is not None


@dataclass(frozen=True)
class Ignored:
    """An event the bot does not act on, and why (logged in one line)."""

    reason: str


BotEvent = PullRequestEvent | CommentEvent | ReviewEvent


@dataclass(frozen=True)
class GradersRun:
    """A completed run of the graders workflow, as its `workflow_run` payload describes it."""

    run_id: int
    repo: str
    head_sha: str
    conclusion: str
    workflow: str
    actor: str
    at: datetime
    head_repo: str = ""
    pull_numbers: tuple[int, ...] = ()


@dataclass(frozen=True)
class GradersEvent:
    """A graders run whose PR the shell verified, with the checks read from its artifact.

    `checks` are untrusted: only `grader:<id>` results, with their texts cut short. `notes` say
    what the shell left out of the artifact, and why.
    """

    run: GradersRun
    number: int
    base_sha: str
    base_ref: str
    checks: tuple[CheckResult, ...]
    notes: tuple[str, ...] = ()

    @property
    def repo(self) -> str:
        """The repository the graders ran in (the PR's base repository)."""
        return self.run.repo

    @property
    def head_sha(self) -> str:
        """The commit the graders ran on."""
        return self.run.head_sha

    @property
    def delivery(self) -> str:
        """The delivery key of the run: a replay of it records nothing new."""
        return f"graders:{self.run.run_id}"


JobEvent = BotEvent | GradersEvent
"""Any event that acts on one PR job."""


@dataclass(frozen=True)
class MergeGroupEvent:
    """A `merge_group` `checks_requested` event."""

    repo: str
    head_sha: str
    base_sha: str
    base_ref: str
    last_pr: int
    built_on: str
    """The commit the last entry was built on (the `<sha>` of its queue branch)."""


@dataclass(frozen=True)
class HandlerContext:
    """The inputs of a handler that the shell resolved: config and rubric at the base, and more.

    `report` is the automatic report of the head (PR open, reopen, ready and push events);
    `deadline` the milestone `due_on`, the linked issue's, or creation plus the SLA (closed
    events); `actor_role` the commenter's role from the collaborator-permission endpoint
    (`role_problem` says why it could not be read, when it could not); `first_attempt` that
    this is the run's first attempt (no view of it can exist yet);
    `reverts_pr` the PR a merged revert undoes (else it is read from the PR body), and
    `reverted_job` that PR's job state, which a `disputed` event for it needs.
    `now` is the run's clock; event times always come from GitHub.
    """

    repo: str
    config: Config
    rubric: Rubric
    now: datetime
    actor_role: str = "none"
    role_problem: str | None = None
    first_attempt: bool = False
    report: ScoreReport | None = None
    deadline: datetime | None = None
    run_id: str = ""
    reverts_pr: int | None = None
    reverted_job: JobState | None = None
