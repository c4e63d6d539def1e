"""One run's handles: its settings, log, GitHub client and scratch directory (`RunHandles`),
where a failure is shown (`FailureTarget`), and what the run needs of GitHub and of the data
branch, as `Protocol`s (shell).

`rubricate.github.adapter.GitHubAdapter` and `rubricate.ledger.backends.DataBranchStore` are
the real ones; tests may pass any object with these methods.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rubricate.action.runtime import ActionsRuntime
from rubricate.action.settings import ActionSettings
from rubricate.bot.effects import SetStatus
from rubricate.bot.events import (
    CommentEvent,
    GradersEvent,
    JobEvent,
    PullRequestEvent,
    ReviewEvent,
)
from rubricate.bot.lowering import lowered
from rubricate.bot.visible import IssueRef
from rubricate.ledger.event import Event
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.ledger.store import AppendResult, Extra

if TYPE_CHECKING:  # the GitHub client loads PyGithub: a dry run without a token never needs it
    from rubricate.github.client import ArtifactInfo, CommentInfo, IssueInfo


class GitHubClient(Protocol):
    """The REST and GraphQL calls the action makes, for one repository."""

    bot_login: str

    def collaborator_role(self, login: str) -> str:
        """The login's role on the repository; `RoleUnreadable` when it cannot be read."""

    def issue(self, ref: IssueRef) -> IssueInfo | None:
        """A linked issue of this repository, or None."""

    def pull(self, number: int) -> dict[str, Any]:
        """A pull request's JSON."""

    def pull_or_none(self, number: int) -> dict[str, Any] | None:
        """A pull request's JSON, or None when there is no such PR."""

    def comment(self, comment_id: int) -> CommentInfo | None:
        """One issue comment, or None when it is gone."""

    def find_sticky(self, pr: int, marker: str) -> CommentInfo | None:
        """The bot's own comment on the PR that carries the marker."""

    def create_comment(self, pr: int, body: str, marker: str = "") -> int:
        """Post a comment; its id (a lost answer is first looked for by `marker`)."""

    def edit_comment(self, comment_id: int, body: str) -> bool:
        """Edit a comment; False when it is gone."""

    def create_check_run(
        self,
        head_sha: str,
        name: str,
        conclusion: str,
        output: dict[str, Any],
        details_url: str | None,
    ) -> int:
        """Create a completed check run; its id."""

    def update_check_run(
        self, check_run_id: int, output: dict[str, Any], conclusion: str | None = None
    ) -> bool:
        """Update a check run's output; False when it is gone."""

    def set_status(
        self, sha: str, state: str, description: str, context: str, target_url: str | None
    ) -> None:
        """Set a commit status."""

    def latest_status(self, sha: str, context: str) -> tuple[str, str] | None:
        """The state and description of the commit's newest status of `context`, else None."""

    def react(self, comment_id: int, content: str) -> None:
        """React to an issue comment."""

    def react_to_node(self, node_id: str, content: str) -> None:
        """React to a review (by its GraphQL node id)."""

    def run_artifact(self, run_id: int, name: str) -> ArtifactInfo | None:
        """A workflow run's artifact by name, or None."""

    def artifact_zip(self, artifact: ArtifactInfo, max_bytes: int) -> bytes:
        """An artifact's zip, at most `max_bytes`."""


class DataStore(Protocol):
    """The ledger store of the data branch, as the action uses it."""

    branch: str
    config: ReputationConfig | None

    def append(
        self, events: Iterable[Event], extras: Mapping[str, Extra] | None = None
    ) -> AppendResult:
        """Append the events not yet present, racing safely."""

    def write_extra(self, path: str, data: Extra) -> AppendResult:
        """Write one non-derived file by the same compare-and-swap."""

    def read_files(self, wanted: Callable[[str], bool]) -> dict[str, bytes]:
        """The tip's files whose path `wanted` accepts. A caller that knows its paths passes a set's
        `__contains__`: a store may then look up only those paths instead of testing each."""


@dataclass
class RunHandles:
    """What one run reads and writes through: settings, log, API client, scratch directory."""

    settings: ActionSettings
    runtime: ActionsRuntime
    api: GitHubClient | None
    workdir: Path
    store: DataStore | None = None
    """The ledger to read and write instead of the data branch (`rubricate worker`'s database)."""

    @property
    def git_allowed(self) -> bool:
        """Git reads happen with a token, or from a remote the environment names explicitly."""
        return bool(self.settings.token or self.settings.repo_remote_override)

    @property
    def repo_dir(self) -> Path:
        """The private bare repository the PR's commits are fetched into."""
        return self.workdir / "repo.git"


@dataclass
class FailureTarget:
    """Where a failure is shown on GitHub, filled in as the run learns it."""

    api: GitHubClient | None = None
    head_sha: str | None = None
    comment_id: int | None = None
    number: int | None = None
    gate_sha: str | None = None
    """A commit whose `rubricate/approval` a failed run sets to failure (a merge group's, or
    the head of a retargeted PR or of one whose review was dismissed)."""
    low: SetStatus | None = None
    """The pending status the event's run sets first (`rubricate.bot.lowering.lowered`)."""
    review_nodes: dict[int, str] = field(default_factory=dict)

    def aim(self, event: JobEvent, payload: Mapping[str, Any]) -> None:
        """Point the failure report at the event's comment, review and head.

        A failed run of a retarget, or of a review's dismissal, also sets the head's gate to
        failure: the head keeps the status the old base's rules (or the dismissed approval) gave
        it, a green say, until a run records the change, so that status must not stand
        meanwhile. (A re-run then sets the new version's
        gate, which is never the old green: a version's change is bound to its base.) Other
        runs leave the gate as the last run that completed set it: a new head has none, an old
        one the gate of its version. The Action and `rubricate serve` both aim this way, and both
        first set the gate `lowered` says, so the old green never stands while the event waits
        for a run that evaluates it (a run cancelled, or a job `rubricate serve` retries)."""
        if isinstance(event, CommentEvent):
            self.comment_id, self.number = event.comment_id, event.number
        if isinstance(event, ReviewEvent):
            node = payload.get("review", {}).get("node_id")
            self.review_nodes = {event.review_id: str(node)} if node else {}
        if isinstance(event, PullRequestEvent | ReviewEvent | GradersEvent):
            self.head_sha = event.head_sha
        self.low = lowered(event)
        if self.low is not None:
            self.gate_sha = self.low.sha

    def lowered(self) -> SetStatus | None:
        """The gate a run sets before its core runs: pending on the head an aimed retarget or
        dismissal takes the green from, until a run evaluates it (the Action sets it at once;
        `rubricate serve` in a transaction of its own, before a job it may retry); the core
        ends with that head's gate (`rubricate.bot.lowering.settled`)."""
        return self.low
