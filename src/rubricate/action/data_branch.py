"""The data branch as one run reads it (shell: git reads): a job's events and view state, the
events of several jobs (a merge group's), and a head's gate status read again at the tip.

The job files are read in one fetch; with no token and no data remote named, nothing is read
and the ledger is taken as empty (said in the log).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass

from rubricate.action.handles import DataStore, RunHandles
from rubricate.action.settings import ActionSettings
from rubricate.bot.effects import SetStatus
from rubricate.bot.gate import gate_of, status, status_text
from rubricate.bot.jobstate import JobState, job_state
from rubricate.bot.view_state import ViewState, decode_views, view_path
from rubricate.errors import DataBranchError, LedgerError
from rubricate.gitio.workspace import remote_refs
from rubricate.ledger.backends import DataBranchStore
from rubricate.ledger.cache import read_head
from rubricate.ledger.event import Event
from rubricate.ledger.paths import CACHE_PATH, job_paths
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
    paths = {*job_paths(repo, pr), view_path(repo, pr), CACHE_PATH}
    if reverts:
        paths.update(job_paths(repo, reverts))
    files = store.read_files(frozenset(paths).__contains__)
    raw = files.get(view_path(repo, pr))
    reverted = stored_events(files, repo, reverts, key, branch) if reverts else ()
    events = stored_events(files, repo, pr, key, branch)
    keyed(f"data branch {branch}", (*events, *reverted), key, _folded_with_key(files))
    handles.runtime.log(f"data branch {branch}: {len(events)} events for #{pr}")
    return StoredJob(store, events, reverted, decode_views(raw, pr, key), raw)


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
        [e for pr in numbers for e in stored_events(files, repo, pr, key, branch)],
        key,
    )


def stored_events(
    files: Mapping[str, bytes], repo: str, pr: int, key: bytes | None, branch: str = ""
) -> tuple[Event, ...]:
    """A job's trusted events from its job file among `files`. A job file that is not one is
    a broken data branch, not a broken configuration: the run fails (exit 1) with its reason,
    wherever it is read (a PR's run, a merge group's, the gate read again at the tip)."""
    try:
        return job_file_events(files, repo, pr, key)
    except LedgerError as exc:
        where = f"data branch {branch}" if branch else "the data branch"
        raise DataBranchError(f"{where}: {exc}") from None


def _folded_with_key(files: Mapping[str, bytes]) -> bool:
    """Whether the ledger's fold cache was last built with a ledger key (seen ledger-wide, so
    also by a run on a PR with no event yet)."""
    head = read_head(files[CACHE_PATH]) if CACHE_PATH in files else None
    return head is not None and head.get("key") is not None


def keyed(
    where: str, events: Sequence[Event], key: bytes | None, keyed_ledger: bool = False
) -> tuple[Event, ...]:
    """The events, when the run can trust them: events signed with a ledger key, or a ledger
    whose fold cache was built with one (`keyed_ledger`), read by a run that has none (the
    secret removed, a workflow job without the `ledger-key` input), fail the run. Without the
    key, an unsigned line with a correct id (which anyone who can push to the data branch can
    write) would count, and the events the run wrote would be unsigned, so refused by every run
    that has the key."""
    if key is None and (keyed_ledger or any(event.sig is not None for event in events)):
        raise DataBranchError(
            f"{where}: it is kept with a ledger key (signed events, its fold cache), but "
            "this run has none: pass the `ledger-key` input (e.g. "
            "secrets.RUBRICATE_LEDGER_KEY); nothing was trusted or written"
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
        events = keyed("the data branch", stored_events(files, repo, pr, key), key)
        job = job_state(events, repo, pr)
        return status(job, rubric, sha)

    return at_tip


def shared_head(
    settings: ActionSettings,
    stored: StoredJob,
    repo: str,
    pr: int,
    rubric: Rubric,
    base_ref: str | None = None,
) -> Callable[[str], SetStatus | None]:
    """What a head's gate must be instead of green when another open PR has the same head.

    A commit status belongs to a commit, not to a PR: when two PRs share a head (one branch
    opened into two bases), GitHub shows each the status last set on it. So a green is set only
    when every other open job in the ledger whose current version has this head is green too;
    else the head gets that job's gate. The other PRs are found by their `refs/pull/<N>/head`
    (one `git ls-remote`, run only when a green is about to be sent); a PR rubricate never
    recorded, one merged or closed, and one into the same base (`base_ref`, as its signed view
    state last saw it: merging either merges the same change, and anyone could otherwise block
    the gate by opening a copy) say nothing."""
    key = settings.ledger_key

    def other_gate(sha: str) -> SetStatus | None:
        refs = remote_refs(settings.repo_remote, ["refs/pull/*/head"], token=settings.token)
        named = (_pull_number(name) for name, head in refs.items() if head == sha)
        numbers = sorted({number for number in named if number is not None and number != pr})
        if not numbers:
            return None
        paths = {path for number in numbers for path in job_paths(repo, number)}
        paths.update(view_path(repo, number) for number in numbers)
        files = stored.store.read_files(frozenset(paths).__contains__)
        for number in numbers:
            pull = decode_views(files.get(view_path(repo, number)), number, key).pull
            if base_ref and pull is not None and pull.base_ref == base_ref:
                continue
            events = keyed("the data branch", stored_events(files, repo, number, key), key)
            job = job_state(events, repo, number)
            version = job.version_of_head(sha)
            if job.merged or job.abandoned or version is None:
                continue
            gate = gate_of(job, rubric)
            if version.number == job.current_version and gate.state != "success":
                text = status_text(f"#{number} has this head too: {gate.description}")
                return SetStatus(sha, gate.state, text)
        return None

    return other_gate


def _pull_number(ref: str) -> int | None:
    """N of `refs/pull/N/head`."""
    number = ref.removeprefix("refs/pull/").removesuffix("/head")
    return int(number) if number.isdigit() and len(number) < 10 else None


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
