"""The reconciler: PRs the ledger holds open that GitHub has closed, caught up (shell: GitHub
REST reads, PostgreSQL).

A delivery GitHub never handed over, and that the sweeper could not get back (older than three
days), leaves a job open in the ledger forever. The reconciler compares, per repository, the
jobs the ledger holds open (`rubricate_jobs`) with the open PRs the REST API lists; each job
whose PR is no longer open is read back and given to catch-up (`rubricate.bot.catch_up`), whose
events carry natural-key ids, so a second pass inserts nothing. At most `MAX_PULLS` PRs are read
per repository and pass; the rest wait for the next one. A rate limit stops the pass; it is
recorded in the installation's budget and the next pass starts again.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from rubricate.bot.catch_up import plan_catch_up
from rubricate.errors import RateLimited
from rubricate.github.adapter import GitHubAdapter
from rubricate.ledger.pg_schema import connect
from rubricate.ledger.pg_store import PostgresStore, Scope
from rubricate.serve import budget
from rubricate.serve.context import WorkerContext

if TYPE_CHECKING:
    import psycopg

    from rubricate.github.adapter import PullSummary

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


def open_jobs(conn: psycopg.Connection[Any]) -> Iterator[tuple[str, int, list[int]]]:
    """Per repository with open jobs: the installation that last delivered for it and the
    open PRs, lowest number first."""
    rows = conn.execute(
        "SELECT j.repo, d.installation, array_agg(j.pr ORDER BY j.pr)"
        " FROM rubricate_jobs j JOIN LATERAL ("
        "   SELECT installation FROM rubricate_deliveries"
        "   WHERE repo = j.repo AND installation IS NOT NULL"
        "   ORDER BY received_at DESC LIMIT 1) d ON TRUE"
        " WHERE j.state = 'open' GROUP BY j.repo, d.installation ORDER BY j.repo"
    ).fetchall()
    for repo, installation, prs in rows:
        yield str(repo), int(installation), [int(pr) for pr in prs]


def reconcile_repo(store: PostgresStore, api: Any, repo: str, ledger_open: list[int]) -> Reconciled:
    """With `store` scoped to `repo`: catch up its ledger-open PRs GitHub no longer lists open."""
    still_open = api.open_pull_numbers()
    closed = [pr for pr in ledger_open if pr not in still_open][:MAX_PULLS]
    pulls: list[PullSummary] = []
    for pr in closed:
        pull = api.pull_summary(pr)
        if pull is not None:
            pulls.append(pull)
    if not pulls:
        return Reconciled(repo, [], 0)
    planned = plan_catch_up(pulls, store.read().events, repo=repo, since=EPOCH)
    added = store.append(planned).added if planned else 0
    return Reconciled(repo, [p.number for p in pulls], added)


def reconcile(ctx: WorkerContext, now: datetime | None = None) -> list[Reconciled]:
    """One pass over every repository with open jobs."""
    now = now or datetime.now(timezone.utc)
    done: list[Reconciled] = []
    with connect(ctx.url) as conn:
        todo = list(open_jobs(conn))
    for repo, installation, prs in todo:
        with PostgresStore(ctx.url, key=ctx.ledger_key, scope=Scope(repo=repo)) as store:
            if budget.blocked_until(store.conn, installation, now) is not None:
                continue
            github = ctx.tokens.client(installation)
            api = budget.Budgeted(GitHubAdapter(github, repo, bot_login=ctx.bot_login()))
            try:
                done.append(reconcile_repo(store, api, repo, prs))
            except RateLimited as exc:
                with store.conn.transaction():
                    budget.record(store.conn, installation, now, until=exc.until)
    return done
