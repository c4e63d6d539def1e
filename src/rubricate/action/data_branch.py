"""The data branch as one run reads it (shell: git reads): a job's events and view state, the
events of several jobs (a merge group's), and a head's gate status read again at the tip.

The job files are read in one fetch; with no token and no data remote named, nothing is read
and the ledger is taken as empty (said in the log).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass

from rubricate.action.handles import DataStore, RunHandles
from rubricate.bot.effects import SetStatus
from rubricate.bot.gate import status
from rubricate.bot.jobstate import JobState, job_state
from rubricate.bot.view_state import ViewState, decode_views, view_path
from rubricate.errors import DataBranchError, LedgerError
from rubricate.ledger.backends import DataBranchStore
from rubricate.ledger.event import Event
from rubricate.ledger.paths import job_paths
from rubricate.ledger.store import job_file_events
from rubricate.rubric.model import Rubric


@dataclass(frozen=True)
class StoredJob:
    """A job as the data branch holds it: the store, the job's events, those of the PR a merged
    revert undoes, and the view state (with its bytes, so that only a change is written)."""

    store: DataStore
    events: tuple[Event, ...]
    reverted: tuple[Event, ...]
    views: ViewState
    views_bytes: bytes | None

    def job(self, repo: str, pr: int) -> JobState:
        """The job folded from its events, with the sticky comment id and the answered comments
        and reviews that the view state knows."""
        job = job_state(self.events, repo, pr)
        views = self.views
        sticky_id = views.sticky.id if views.sticky else None
        return dataclasses.replace(
            job, sticky_comment_id=sticky_id, answered=frozenset(views.answered)
        )


def open_job(
    handles: RunHandles,
    repo: str,
    pr: int,
    branch: str,
    stack: ExitStack,
    reverts: int | None = None,
) -> StoredJob:
    """The data branch store, with the job's events and view state read in one fetch (and those
    of the PR a merged revert undoes)."""
    key = handles.settings.ledger_key
    store = _store(handles, branch, stack)
    if not readable(handles):
        return StoredJob(store, (), (), ViewState(pr=pr), None)
    paths = {*job_paths(repo, pr), view_path(repo, pr)}
    if reverts:
        paths.update(job_paths(repo, reverts))
    files = store.read_files(frozenset(paths).__contains__)
    raw = files.get(view_path(repo, pr))
    try:
        reverted = job_file_events(files, repo, reverts, key) if reverts else ()
        events = job_file_events(files, repo, pr, key)
    except LedgerError as exc:  # the data branch is broken, not the config: the run failed
        raise DataBranchError(f"data branch {branch}: {exc}") from None
    keyed(f"data branch {branch}", (*events, *reverted), key)
    handles.runtime.log(f"data branch {branch}: {len(events)} events for #{pr}")
    return StoredJob(store, events, reverted, decode_views(raw, pr), raw)


def jobs_events(
    handles: RunHandles, repo: str, prs: Iterable[int], branch: str, stack: ExitStack
) -> tuple[Event, ...]:
    """The events of several jobs, read from their job files in one fetch."""
    if not readable(handles):
        return ()
    store = _store(handles, branch, stack)
    numbers = tuple(prs)
    paths = {path for pr in numbers for path in job_paths(repo, pr)}
    files = store.read_files(frozenset(paths).__contains__)
    key = handles.settings.ledger_key
    return keyed(
        f"data branch {branch}",
        [e for pr in numbers for e in job_file_events(files, repo, pr, key)],
        key,
    )


def keyed(where: str, events: Sequence[Event], key: bytes | None) -> tuple[Event, ...]:
    """The events, when the run can trust them: events signed with a ledger key, read by a run
    that has none (the secret removed, a workflow job without the `ledger-key` input), fail the
    run. Without the key, an unsigned line with a correct id (which anyone who can push to the
    data branch can write) would count, and the events the run wrote would be unsigned, so
    refused by every run that has the key."""
    if key is None and any(event.sig is not None for event in events):
        raise DataBranchError(
            f"{where}: its events are signed with a ledger key, but this run has "
            "none: pass the `ledger-key` input (e.g. secrets.RUBRICATE_LEDGER_KEY); nothing "
            "was trusted or written"
        )
    return tuple(events)


def tip_status(
    stored: StoredJob, repo: str, pr: int, rubric: Rubric, key: bytes | None
) -> Callable[[str], SetStatus]:
    """The gate status a head has on the data branch's tip, read again: what a run sets after a
    green when another run may have changed the job meanwhile."""
    paths = set(job_paths(repo, pr))

    def at_tip(sha: str) -> SetStatus:
        files = stored.store.read_files(frozenset(paths).__contains__)
        events = keyed("the data branch", job_file_events(files, repo, pr, key), key)
        job = job_state(events, repo, pr)
        return status(job, rubric, sha)

    return at_tip


def readable(handles: RunHandles) -> bool:
    """False (and said) when the data branch is not read: no token and no override."""
    if handles.settings.token or handles.settings.data_remote_override:
        return True
    handles.runtime.log("no token: the data branch is not read (an empty ledger is assumed)")
    return False


def _store(handles: RunHandles, branch: str, stack: ExitStack) -> DataStore:
    """The data branch store, closed with the stack (or the run's own store: `rubricate
    worker`'s database)."""
    if handles.store is not None:
        return handles.store
    settings = handles.settings
    store = DataBranchStore(
        settings.data_remote, branch, token=settings.token, key=settings.ledger_key
    )
    return stack.enter_context(store)
