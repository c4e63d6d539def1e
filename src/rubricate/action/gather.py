"""Gather everything a handler needs for one event, in the order the event allows (shell).

PR and review payloads name the base and head; a comment's does not, so its run first reads the
view state the last PR event left on the data branch (else asks the API once). Then the base is
fetched, config and rubric read there, the job loaded from the data branch, and, for a PR's new
head, the change scored (automatic evidence, then the judge when a key is set). The single
reads are in `inputs.py`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from rubricate.action import inputs
from rubricate.action.settings import ledger_key
from rubricate.bot.events import GradersEvent, HandlerContext, JobEvent, PullRequestEvent
from rubricate.bot.jobstate import JobState, job_state
from rubricate.bot.view_state import PullState, ViewState, decode_views, view_path
from rubricate.bot.visible import reverted_pr
from rubricate.config import Config, data_branch_problem
from rubricate.errors import ConfigError, DataBranchError, LedgerError

if TYPE_CHECKING:
    from rubricate.action.ports import DataStore, Reader
    from rubricate.bot.effects import SetStatus
    from rubricate.evidence.results import ScoreReport
    from rubricate.evidence.snapshot import Snapshot
    from rubricate.ledger.backends import DataBranchStore
    from rubricate.ledger.event import Event
    from rubricate.rubric.model import Rubric

DEFAULT_DATA_BRANCH = Config().data_branch


@dataclass(frozen=True)
class Ledger:
    """The data branch as this run sees it: the job's events and the stored view state."""

    store: DataStore
    events: tuple[Event, ...]
    reverted: tuple[Event, ...]
    views: ViewState
    views_bytes: bytes | None


@dataclass(frozen=True)
class Prepared:
    """The handler's inputs, and what the shell needs to apply its effects."""

    pull: PullState | None
    ledger: Ledger
    snapshot: Snapshot | None
    job: JobState
    context: HandlerContext

    @property
    def head_sha(self) -> str | None:
        """The head commit the views belong to, when known."""
        return self.pull.head_sha if self.pull else None


def prepare(
    reader: Reader,
    event: JobEvent,
    payload: Mapping[str, Any],
    stack: ExitStack,
    now: datetime,
    on_head: Callable[[str], None] | None = None,
) -> Prepared:
    """Gather config, rubric, job, snapshot and context for `event`.

    `on_head` learns the PR's head as soon as it is known, before the config is read, so that a
    bad config can still be reported as a failing check on the head.
    """
    reverts = reverted_pr(event) if isinstance(event, PullRequestEvent) and event.merged else None
    pull = inputs.pull_from_payload(event, payload)
    ledger = None
    if pull is None:
        ledger = open_ledger(
            reader, event, reader.settings.data_branch or DEFAULT_DATA_BRANCH, stack, reverts
        )
        pull = ledger.views.pull or inputs.pull_from_api(reader, event.number)
    if pull is not None and on_head is not None:
        on_head(pull.head_sha)
    merge_base, fetched = inputs.fetch_pull(reader, event, pull)
    default_branch = inputs.default_branch(payload)
    base_ref = pull.base_ref if pull else None
    at = inputs.config_commit(reader, pull, default_branch, fetched) if pull else None
    config = inputs.read_config(reader, at).for_base(base_ref)
    rubric = read_rubric(reader, at, config)
    branch = reader.settings.data_branch or config.data_branch
    problem = data_branch_problem(branch, default_branch, base_ref)
    if problem is not None:
        raise ConfigError(problem)
    if ledger is None or ledger.store.branch != branch:
        ledger = open_ledger(reader, event, branch, stack, reverts)
    ledger.store.config = config.reputation
    settings = reader.settings
    context = HandlerContext(
        repo=event.repo,
        config=config,
        rubric=rubric,
        now=now,
        run_id=settings.run_id,
        first_attempt=settings.run_attempt == 1,
    )
    snapshot, context = _for_event(reader, event, merge_base, context, ledger, reverts)
    return Prepared(pull, ledger, snapshot, job_of(ledger, event), context)


def job_of(ledger: Ledger, event: JobEvent) -> JobState:
    """The job folded from its events, with the sticky comment id and the answered comments and
    reviews that the view state knows."""
    job = job_state(ledger.events, event.repo, event.number)
    views = ledger.views
    sticky_id = views.sticky.id if views.sticky else None
    return dataclasses.replace(job, sticky_comment_id=sticky_id, answered=frozenset(views.answered))


def open_ledger(
    reader: Reader, event: JobEvent, branch: str, stack: ExitStack, reverts: int | None
) -> Ledger:
    """The data branch store, with this job's events and view state read in one fetch."""
    from rubricate.ledger.paths import job_paths
    from rubricate.ledger.store import job_file_events

    pr, key = event.number, ledger_key(reader.settings.ledger_key)
    store = data_store(reader, branch, stack)
    if not ledger_readable(reader):
        return Ledger(store, (), (), ViewState(pr=pr), None)
    paths = {*job_paths(event.repo, pr), view_path(event.repo, pr)}
    if reverts:
        paths.update(job_paths(event.repo, reverts))
    files = store.read_files(lambda p: p in paths)
    raw = files.get(view_path(event.repo, pr))
    try:
        reverted = job_file_events(files, event.repo, reverts, key) if reverts else ()
        events = job_file_events(files, event.repo, pr, key)
    except LedgerError as exc:  # the data branch is broken, not the config: the run failed
        raise DataBranchError(f"data branch {branch}: {exc}") from None
    reader.runtime.log(f"data branch {branch}: {len(events)} events for #{pr}")
    return Ledger(store, events, reverted, decode_views(raw, pr), raw)


def data_store(reader: Reader, branch: str, stack: ExitStack) -> DataBranchStore:
    """The data branch store, closed with the stack."""
    from rubricate.ledger.backends import DataBranchStore

    settings = reader.settings
    key = ledger_key(settings.ledger_key)
    return stack.enter_context(
        DataBranchStore(settings.data_remote, branch, token=settings.token, key=key)
    )


def ledger_readable(reader: Reader) -> bool:
    """False (and said) when the data branch is not read: no token and no override."""
    if reader.settings.token or reader.settings.data_remote_override:
        return True
    reader.runtime.log("no token: the data branch is not read (an empty ledger is assumed)")
    return False


def jobs_events(
    reader: Reader, repo: str, prs: Iterable[int], branch: str, stack: ExitStack
) -> tuple[Event, ...]:
    """The events of several jobs, read from their job files in one fetch."""
    from rubricate.ledger.paths import job_paths
    from rubricate.ledger.store import job_file_events

    if not ledger_readable(reader):
        return ()
    store = data_store(reader, branch, stack)
    key = ledger_key(reader.settings.ledger_key)
    numbers = tuple(prs)
    paths = {path for pr in numbers for path in job_paths(repo, pr)}
    files = store.read_files(lambda p: p in paths)
    return tuple(e for pr in numbers for e in job_file_events(files, repo, pr, key))


def _for_event(
    reader: Reader,
    event: JobEvent,
    merge_base: str | None,
    context: HandlerContext,
    ledger: Ledger,
    reverts: int | None,
) -> tuple[Snapshot | None, HandlerContext]:
    config = context.config
    if isinstance(event, GradersEvent):
        return None, context
    if not isinstance(event, PullRequestEvent):
        role, problem = inputs.actor_role(reader, event, config)
        return None, dataclasses.replace(context, actor_role=role, role_problem=problem)
    if event.action == "closed":
        wants_issue = event.merged and event.milestone_due_on is None
        issues = inputs.linked(reader, event) if wants_issue else []
        reverted = job_state(ledger.reverted, event.repo, reverts) if reverts else None
        snapshot = inputs.head_only(reader, event, merge_base is not None)
        deadline = inputs.deadline(event, issues, config)
        return snapshot, dataclasses.replace(
            context, deadline=deadline, reverts_pr=reverts, reverted_job=reverted
        )
    issues = inputs.linked(reader, event)
    snapshot = inputs.snapshot(reader, event, merge_base, inputs.spec_text(issues), config)
    report = score_head(reader, snapshot, context.rubric, config)
    return snapshot, dataclasses.replace(context, report=report)


def read_rubric(reader: Reader, base_sha: str | None, config: Config) -> Rubric:
    """The rubric named by the `rubric` input or the config, read at the base commit."""
    from rubricate.cli.repo_reader import allowed_env, builtin_rubrics, local_reader
    from rubricate.rubric.loader import find_rubric

    ref = reader.settings.rubric or config.rubric
    env = allowed_env(config.agentv.env)

    def at_base(path: str) -> str:
        text = inputs.read_text(reader, base_sha, path)
        if text is None:
            raise FileNotFoundError(path)
        return text

    if base_sha is None:
        reader.runtime.log(f"rubric {ref}: read without git (built-in or local file)")
        return find_rubric(ref, local_reader(reader.repo_dir), builtin_rubrics(), env)
    try:
        return find_rubric(ref, at_base, builtin_rubrics(), env)
    except ConfigError as exc:
        named_by = "the `rubric` input" if reader.settings.rubric else reader.settings.config_path
        raise ConfigError(f"{exc} (named by {named_by})") from None


def score_head(reader: Reader, snap: Snapshot, rubric: Rubric, config: Config) -> ScoreReport:
    """Automatic evidence, then the judge when a key is configured (graders never run here)."""
    from rubricate.evidence.autoscore import auto_score
    from rubricate.judge.service import judge_report

    report = auto_score(snap, rubric, config)
    settings = reader.settings
    return judge_report(
        report,
        snap,
        config.judge,
        mode="auto",
        model=settings.model,
        env=settings.judge_env(),
        cache_dir=settings.judge_cache_dir,
    )


def tip_status(prepared: Prepared, key_text: str | None) -> Callable[[str], SetStatus]:
    """The gate status a head has on the data branch's tip, read again: what a run sets after a
    green when another run may have changed the job meanwhile."""
    from rubricate.bot.gate import status
    from rubricate.ledger.paths import job_paths
    from rubricate.ledger.store import job_file_events

    repo, pr, key = prepared.context.repo, prepared.job.pr, ledger_key(key_text)
    paths = set(job_paths(repo, pr))

    def at_tip(sha: str) -> SetStatus:
        files = prepared.ledger.store.read_files(lambda p: p in paths)
        job = job_state(job_file_events(files, repo, pr, key), repo, pr)
        return status(job, prepared.context.rubric, sha)

    return at_tip
