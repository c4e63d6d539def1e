"""The graders hand-off: a finished graders run, and its verified results (pure: data only).

`parse_graders_run` reads a `workflow_run` payload (action `completed`, any conclusion) of a run
started by `pull_request`: the graders workflow. It names no PR that can be trusted: for a fork,
`workflow_run.pull_requests` is empty, and the run's artifact is written by the PR's own code.
The shell finds the PR through the artifact, verifies it against the API (the PR's current head
must be the run's head), and only then builds a `GradersEvent` for the handler.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from rubricate.bot.payload import BotEvent, Ignored, PayloadError, parse_time

if TYPE_CHECKING:
    from rubricate.evidence.report_model import CheckResult

GRADERS_TRIGGER = "pull_request"
_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


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
        run_id=_positive(run, "id"),
        repo=_full_name(payload.get("repository")),
        head_sha=head_sha,
        conclusion=str(run.get("conclusion") or "none"),
        workflow=str(run.get("name") or ""),
        actor=_login(run.get("triggering_actor")) or _login(run.get("actor")),
        at=_time(run),
        head_repo=_full_name(run.get("head_repository"), required=False),
        pull_numbers=_pull_numbers(run.get("pull_requests")),
    )


def _positive(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise PayloadError(f"webhook payload: `workflow_run.{key}` is not a positive integer")
    return value


def _full_name(repo: Any, *, required: bool = True) -> str:
    name = repo.get("full_name") if isinstance(repo, Mapping) else None
    if isinstance(name, str) and name:
        return name
    if required:
        raise PayloadError("webhook payload: `repository.full_name` is missing")
    return ""


def _login(user: Any) -> str:
    return str(user.get("login") or "") if isinstance(user, Mapping) else ""


def _time(run: Mapping[str, Any]) -> datetime:
    text = run.get("updated_at") or run.get("created_at")
    if not isinstance(text, str):
        raise PayloadError("webhook payload: `workflow_run.updated_at` is missing")
    try:
        return parse_time(text)
    except ValueError:
        raise PayloadError(
            f"webhook payload: `workflow_run.updated_at` is not a time: {text!r}"
        ) from None


def _pull_numbers(pulls: Any) -> tuple[int, ...]:
    if not isinstance(pulls, list):
        return ()
    numbers = [p.get("number") for p in pulls if isinstance(p, Mapping)]
    return tuple(n for n in numbers if isinstance(n, int) and not isinstance(n, bool))
