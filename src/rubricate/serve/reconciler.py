"""The reconciler: what the ledger holds of each repository compared with its open PRs, and
caught up (shell: GitHub REST reads, git, PostgreSQL).

A delivery GitHub never handed over, and that the sweeper could not get back (older than three
days), leaves the ledger behind. Per repository with jobs, one listing of the open PRs shows both
kinds of gap:

- a job the ledger holds open whose PR is no longer open is read back and given to catch-up
  (`rubricate.bot.catch_up.plan_catch_up`, with the repository's `sla_hours` and its linked
  issues' due dates, read as `rubricate catch-up` reads them); its events carry natural-key ids,
  so a second pass inserts nothing;
- an open PR whose head the ledger never recorded (`unseen_heads`) gets a `pull_request`
  delivery for that head, made from the listing (`synchronize`, or `opened` for a PR the ledger
  never saw), stored and queued as the receiver stores one: a worker then runs the core for it
  as for any delivery. Its GUID names the PR and the head, so a second pass queues nothing.

At most `MAX_PULLS` PRs of each kind are handled per repository and pass; the rest wait for the
next one. A rate limit stops the pass for that installation; it is recorded in its budget.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from rubricate.action.catch_up_inputs import default_branch_config, linked_due_dates
from rubricate.bot.catch_up import plan_catch_up, pulls_to_record, unseen_heads
from rubricate.config import Config
from rubricate.errors import RateLimited
from rubricate.github.adapter import GitHubAdapter
from rubricate.ledger.event import rfc3339
from rubricate.ledger.pg_schema import connect
from rubricate.ledger.pg_store import PostgresStore, Scope
from rubricate.serve import budget, write_pace
from rubricate.serve.context import WorkerContext
from rubricate.serve.intake import classify, store

if TYPE_CHECKING:
    import psycopg

    from rubricate.github.adapter import OpenPull, PullSummary

MAX_PULLS = 50
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


@dataclass(frozen=True)
class Reconciled:
    """What one pass did for one repository."""

    repo: str
    closed: list[int]
    """The ledger-open PRs GitHub no longer lists as open, as read back."""
    added: int
    """The catch-up events inserted."""
    queued: list[int] = field(default_factory=list)
    """The open PRs whose head the ledger never recorded, queued to be run for that head."""


@dataclass(frozen=True)
class Repository:
    """What the reconciler reads of one repository besides the ledger."""

    api: Any
    """The GitHub adapter (behind the installation's budget)."""
    installation: int
    config: Callable[[], Config]
    """The config on the default branch, read when a merged PR needs its `sla_hours`."""
    server_url: str = "https://github.com"


def repositories(conn: psycopg.Connection[Any]) -> Iterator[tuple[str, int, list[int]]]:
    """Per repository with jobs: the installation that last delivered for it and the PRs the
    ledger holds open, lowest number first."""
    rows = conn.execute(
        "SELECT j.repo, d.installation,"
        " coalesce(array_agg(j.pr ORDER BY j.pr) FILTER (WHERE j.state = 'open'), '{}')"
        " FROM rubricate_jobs j JOIN LATERAL ("
        "   SELECT installation FROM rubricate_deliveries"
        "   WHERE repo = j.repo AND installation IS NOT NULL"
        "   ORDER BY received_at DESC LIMIT 1) d ON TRUE"
        " GROUP BY j.repo, d.installation ORDER BY j.repo"
    ).fetchall()
    for repo, installation, prs in rows:
        yield str(repo), int(installation), [int(pr) for pr in prs]


def reconcile_repo(
    ledger: PostgresStore, repo: str, ledger_open: list[int], where: Repository
) -> Reconciled:
    """With `ledger` scoped to `repo`: catch up its ledger-open PRs GitHub no longer lists open,
    and queue the open PRs whose head it never recorded."""
    listed: list[OpenPull] = where.api.open_pulls()
    still_open = {pull.number for pull in listed}
    closed = [pr for pr in ledger_open if pr not in still_open][:MAX_PULLS]
    pulls: list[PullSummary] = []
    for pr in closed:
        pull = where.api.pull_summary(pr)
        if pull is not None:
            pulls.append(pull)
    added = _catch_up(ledger, repo, pulls, where) if pulls else 0
    heads, first = _recorded_heads(ledger.conn, repo, sorted(still_open))
    queued = [
        pull.number
        for pull in unseen_heads(listed, heads, first)[:MAX_PULLS]
        if _queue_head(ledger.conn, pull, where.installation, known=pull.number in heads)
    ]
    return Reconciled(repo, [p.number for p in pulls], added, queued)


def _catch_up(
    ledger: PostgresStore, repo: str, pulls: Sequence[PullSummary], where: Repository
) -> int:
    events = ledger.read().events
    todo = pulls_to_record(pulls, events, repo=repo, since=EPOCH)
    merged = any(pull.merged_at is not None for pull in todo)
    sla = where.config().reputation.sla_hours if merged else None
    linked = linked_due_dates(cast("GitHubAdapter", where.api), todo, where.server_url)
    planned = plan_catch_up(
        pulls, events, repo=repo, since=EPOCH, sla_hours=sla, linked_due_on=linked
    )
    return ledger.append(planned).added if planned else 0


def _recorded_heads(
    conn: psycopg.Connection[Any], repo: str, prs: Sequence[int]
) -> tuple[dict[int, set[str]], datetime | None]:
    """The heads the ledger recorded for these PRs (those it holds), and the repository's
    first event time."""
    rows = conn.execute(
        "SELECT pr, array_agg(DISTINCT line::jsonb->>'head_sha') FROM rubricate_events"
        " WHERE repo = %s AND pr = ANY(%s) GROUP BY pr",
        (repo, list(prs)),
    ).fetchall()
    first = conn.execute(
        "SELECT min(opened_at) FROM rubricate_jobs WHERE repo = %s", (repo,)
    ).fetchone()
    heads = {int(pr): {h for h in found if h} for pr, found in rows}
    return heads, None if first is None else first[0]


def _queue_head(
    conn: psycopg.Connection[Any], pull: OpenPull, installation: int, *, known: bool
) -> bool:
    """Store and queue a `pull_request` delivery for the PR's head; False when it is there."""
    guid = f"reconcile:{pull.repo}#{pull.number}@{pull.head_sha}"
    action = "synchronize" if known else "opened"
    body = json.dumps(head_payload(pull, action, installation)).encode()
    delivery = classify(guid, "pull_request", body)
    return store(conn, delivery) and delivery.state == "queued"


def head_payload(pull: OpenPull, action: str, installation: int) -> dict[str, Any]:
    """The `pull_request` delivery GitHub would have sent for the PR's head (the fields the bot
    reads)."""
    user = {"login": pull.author, "type": pull.author_type}
    due = pull.milestone_due_on
    return {
        "action": action,
        "number": pull.number,
        "pull_request": {
            "number": pull.number,
            "state": "open",
            "user": user,
            "draft": pull.draft,
            "merged": False,
            "head": {"sha": pull.head_sha, "ref": pull.head_ref},
            "base": {"sha": pull.base_sha, "ref": pull.base_ref},
            "title": pull.title,
            "body": pull.body,
            "created_at": rfc3339(pull.created_at),
            "updated_at": rfc3339(pull.updated_at),
            "closed_at": None,
            "merged_at": None,
            "milestone": None if due is None else {"due_on": rfc3339(due)},
        },
        "repository": {"full_name": pull.repo, "default_branch": pull.default_branch},
        "sender": user,
        "installation": {"id": installation},
    }


def reconcile(ctx: WorkerContext, now: datetime | None = None) -> list[Reconciled]:
    """One pass over every repository with jobs."""
    now = now or datetime.now(timezone.utc)
    done: list[Reconciled] = []
    with connect(ctx.url) as conn:
        todo = list(repositories(conn))
    for repo, installation, prs in todo:
        with PostgresStore(ctx.url, key=ctx.ledger_key, scope=Scope(repo=repo)) as ledger:
            if budget.blocked_until(ledger.conn, installation, now) is not None:
                continue
            github = ctx.tokens.client(installation)
            adapter = GitHubAdapter(github, repo, bot_login=ctx.bot_login())
            api = budget.Budgeted(adapter, write_pace.pacer(ledger.conn, installation))
            token = ctx.tokens.token(installation)
            settings = ctx.settings("catch-up", Path(os.devnull), repo, token)
            config = partial(
                default_branch_config, settings.repo_remote, settings.token, settings.config_path
            )
            where = Repository(api, installation, config, settings.server_url)
            try:
                done.append(reconcile_repo(ledger, repo, prs, where))
            except RateLimited as exc:
                budget.stopped(ledger.conn, installation, now, exc)
    return done
