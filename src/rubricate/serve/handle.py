"""The worker's job for one delivery: the Action's own gathering and pure core, then the events
and the view effects stored in one transaction (shell: GitHub reads, git, PostgreSQL).

A delivery already handled is skipped, so a job retried after a crash between its commit and
its acknowledgement does nothing; one retried before its commit starts again, and the events it
inserts carry their natural-key ids, so nothing is inserted twice. The view effects go to the
outbox, and one publish job per PR writes them to GitHub (`rubricate.serve.publish`). A
configuration mistake in the repository is recorded as `failed` with a failing check run on the
head, never retried; a rate limit puts the job back until GitHub's time; anything else raises,
and the job is retried later. A retarget or a review's dismissal takes the head's green down
before its core runs (`lower_first`), so no retry waits with the old green standing.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, cast

from rubricate.action.executor import Executor
from rubricate.action.gather import gather, locate
from rubricate.action.handles import FailureTarget, RunHandles
from rubricate.action.runtime import ActionsRuntime
from rubricate.bot.effects import AppendEvents, Effect, SetCheckRun, SetStatus, Undecided
from rubricate.bot.events import CommentEvent, PullRequestEvent, ReviewEvent
from rubricate.bot.handlers import handle
from rubricate.bot.lowering import lowered
from rubricate.bot.payload import parse_event
from rubricate.bot.view_state import PullState, ViewState, decode_views, encode_views, view_path
from rubricate.errors import (
    ConfigError,
    ExecutionError,
    HandledMeanwhile,
    RateLimited,
    RubricateError,
    SourceError,
)
from rubricate.github.adapter import GitHubAdapter
from rubricate.ledger.pg_store import PostgresStore
from rubricate.serve import budget, outbox, write_pace
from rubricate.serve.connections import BorrowedStore
from rubricate.serve.context import WorkerContext
from rubricate.serve.ledger_files import LedgerFiles
from rubricate.serve.queue import PUBLISH, PUBLISH_PRIORITY, defer, hold_pr, pr_lock

if TYPE_CHECKING:
    import psycopg

    from rubricate.action.handles import GitHubClient


@dataclass(frozen=True)
class Stored:
    """A delivery as the receiver stored it."""

    guid: str
    event: str
    installation: int
    repo: str
    pr: int
    state: str
    body: bytes


@dataclass
class Handled:
    """What the core decided for one delivery, and the handles to store it with."""

    effects: list[Effect]
    pull: PullState | None = None
    api: GitHubClient | None = None
    runtime: ActionsRuntime | None = None
    failure: str | None = None
    """Why the core was not reached (the delivery is then `failed`)."""


def handle_delivery(ctx: WorkerContext, guid: str, now: datetime | None = None) -> str:
    """Handle one stored delivery; its state afterwards (`handled`, `failed`, or the state it
    already had)."""
    now = now or datetime.now(timezone.utc)
    with ctx.connections.borrow() as conn:
        store = BorrowedStore(conn, key=ctx.ledger_key)
        delivery = load(store, guid)
        if delivery is None or delivery.state != "queued":
            return "missing" if delivery is None else delivery.state
        hold_pr(store.conn, delivery.repo, delivery.pr)
        payload: dict[str, Any] = json.loads(delivery.body)
        event = parse_event(delivery.event, payload)  # once: the lowering and the core read it
        lower_first(store.conn, delivery, event)  # before any wait: the publish goes first
        until = budget.blocked_until(store.conn, delivery.installation, now)
        if until is not None:
            raise RateLimited(until)
        files = LedgerFiles(store, delivery.repo)
        try:
            done = run_core(ctx, delivery, files, now, event, payload)
        except RateLimited as exc:
            budget.stopped(store.conn, delivery.installation, now, exc)
            raise
        try:
            commit(files, delivery, done)
        except HandledMeanwhile:
            current = load(store, guid)
            return current.state if current else "missing"
        return "failed" if done.failure else "handled"


def load(store: PostgresStore, guid: str) -> Stored | None:
    """The stored delivery, or None."""
    row = store.conn.execute(
        "SELECT guid, event, installation, repo, pr, state, body FROM rubricate_deliveries"
        " WHERE guid = %s",
        (guid,),
    ).fetchone()
    if row is None:
        return None
    guid, event, installation, repo, pr, state, body = row
    return Stored(guid, event, int(installation or 0), repo or "", int(pr or 0), state, bytes(body))


def lower_first(conn: psycopg.Connection[Any], delivery: Stored, event: object) -> None:
    """Before the core runs: a retarget or a review's dismissal takes the head's green down
    (`rubricate.bot.lowering.lowered`), once per delivery, committed on its own and published by
    the PR's next publish job, so a job that fails and waits for its retry never leaves the old
    green standing; the core then ends with the gate the ledger gives that head."""
    low = lowered(event)
    if low is None:
        return
    with conn.transaction():
        sql = "SELECT 1 FROM rubricate_outbox WHERE delivery = %s LIMIT 1"
        if conn.execute(sql, (delivery.guid,)).fetchone() is None:
            outbox.put(conn, _where(delivery), [low])
            _queue_publish(conn, delivery)


def run_core(
    ctx: WorkerContext,
    delivery: Stored,
    files: LedgerFiles,
    now: datetime,
    event: object,
    payload: dict[str, Any],
) -> Handled:
    """Gather the handler's inputs as the Action does (`event` parsed from `payload`, the
    delivery's body) and return its effects."""
    if not isinstance(event, PullRequestEvent | CommentEvent | ReviewEvent):
        return Handled([], failure=f"delivery {delivery.guid} holds no PR job")
    github = ctx.tokens.client(delivery.installation)
    before = budget.last_headers(github.requester)
    target = FailureTarget()
    target.aim(event, payload)
    runtime = ActionsRuntime(stream=sys.stderr)
    adapter = GitHubAdapter(github, delivery.repo, bot_login=ctx.bot_login())
    api = budget.Budgeted(adapter, write_pace.pacer(files.conn, delivery.installation))
    try:
        with ctx.scratch.borrow(delivery.repo) as tmp, ExitStack() as stack:
            path = tmp / "event.json"
            path.write_bytes(delivery.body)
            token = ctx.tokens.token(delivery.installation)
            settings = ctx.settings(delivery.event, path, delivery.repo, token)
            for secret in settings.secrets:
                runtime.mask(secret)
            handles = RunHandles(settings, runtime, cast("GitHubClient", api), tmp, store=files)
            located = locate(handles, event, payload, stack)
            if located.pull is not None:  # a bad config is then shown on the head
                target.head_sha = located.pull.head_sha
            prepared = gather(handles, event, payload, located, stack, now)
            effects = handle(event, prepared.snapshot, prepared.job, prepared.context)
    except RubricateError as exc:
        if api.limited is not None:
            raise api.limited from None
        if exc.exit_code != ConfigError.exit_code:  # the run failed: retried
            raise
        lines = [str(d) for d in exc.diagnostics] if isinstance(exc, SourceError) else [str(exc)]
        reason = runtime.redact("\n".join(lines))
        return Handled(_failure_effects(reason, target), failure=reason)
    finally:
        with files.conn.transaction():
            seen = budget.seen_since(github.requester, before)
            budget.record(files.conn, delivery.installation, now, **seen)
    if api.limited is not None:  # a read refused and passed over: the job waits, then runs again
        raise api.limited
    undecided = [e.reason for e in effects if isinstance(e, Undecided)]
    if undecided:  # a role GitHub did not tell: decided again by the retry
        raise ExecutionError(f"undecided, retried later: {'; '.join(undecided)}")
    return Handled(effects, prepared.pull, cast("GitHubClient", api), runtime)


def commit(files: LedgerFiles, delivery: Stored, done: Handled) -> None:
    """In one transaction: the events, the PR's state, the outbox row, the publish job and the
    delivery's new state (`handled`, or `failed` when the core was not reached). Nothing is
    committed when the delivery is no longer `queued` by then (`HandledMeanwhile`)."""
    conn = files.conn
    with conn.transaction():
        appends: list[Effect] = [e for e in done.effects if isinstance(e, AppendEvents)]
        if appends:
            assert done.api is not None  # the core ran
            assert done.runtime is not None
            views = ViewState(pr=delivery.pr)
            if len(appends) > 1:  # their locks in one order before the first (no deadlock)
                files.store.lock_for(
                    e for a in appends if isinstance(a, AppendEvents) for e in a.events
                )
            Executor(done.api, files, done.runtime, views, views_trusted=True).apply(appends)
        if done.pull is not None:
            path = view_path(delivery.repo, delivery.pr)
            files.write_extra(path, _with_pull(delivery.pr, done.pull))
        rest = [e for e in done.effects if not isinstance(e, AppendEvents)]
        if rest:
            redact = done.runtime.redact if done.runtime else str
            outbox.put(conn, _where(delivery), rest, redact)
            _queue_publish(conn, delivery)
        state = "failed" if done.failure else "handled"
        updated = conn.execute(
            "UPDATE rubricate_deliveries SET state = %s, reason = %s"
            " WHERE guid = %s AND state = 'queued' RETURNING guid",
            (state, done.failure, delivery.guid),
        ).fetchone()
        if updated is None:  # another run committed it first: this one leaves no trace
            raise HandledMeanwhile(delivery.guid)


def _where(delivery: Stored) -> tuple[str, int, int, str]:
    return (delivery.repo, delivery.pr, delivery.installation, delivery.guid)


def _queue_publish(conn: psycopg.Connection[Any], delivery: Stored) -> None:
    """Queue the PR's publish job (one waits at most), in the caller's transaction."""
    lock = pr_lock(delivery.repo, delivery.pr)
    args = {"repo": delivery.repo, "pr": delivery.pr}
    queueing = f"publish:{lock}"
    defer(conn, PUBLISH, args, lock=lock, queueing_lock=queueing, priority=PUBLISH_PRIORITY)


def _with_pull(pr: int, pull: PullState) -> Callable[[bytes | None], bytes | None]:
    def write(old: bytes | None) -> bytes | None:
        views = decode_views(old, pr)
        views.pull = pull
        return encode_views(views)

    return write


def _failure_effects(reason: str, target: FailureTarget) -> list[Effect]:
    """A failing check run with the reason on the head; and, for a retarget, the head's gate set
    to failure (`FailureTarget.aim`), as the Action's failed run does."""
    if target.head_sha is None:
        return []
    title = "rubricate: configuration error"
    summary = f"{title}.\n\n```\n{reason[:60000]}\n```"
    effects: list[Effect] = [
        SetCheckRun(head_sha=target.head_sha, title=title, summary=summary, conclusion="failure")
    ]
    if target.gate_sha is not None:
        effects.append(SetStatus(target.gate_sha, "failure", title))
    return effects
