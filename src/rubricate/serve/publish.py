"""The publish job: one PR's latest views written to GitHub, idempotently (shell: GitHub writes,
PostgreSQL).

It applies what the outbox holds for the PR, reduced to the latest state (`outbox.latest`),
through the Action's own executor: the sticky comment is found by its marker and edited only
when its text changes, a check run or status the view state already shows costs no request (but
a status whose other state an earlier, unfinished publish may have sent is set again:
`outbox.states_dropped`), a check run is looked for by its name and an external id digesting its
content before it is created (`OneCheckRun`), and a reply is looked for by its marker before it
is posted; a publish run again (after a kill) looks for a status on the commit before it sets it
(`OneStatus`). The view state and the rows it published are then committed together; a failure
leaves the rows for the retry; so does a rate limit or the installation's pace of writes, which
keeps the views it finished, so the retry does not write them again.
"""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, cast

from rubricate.action.executor import Executor
from rubricate.action.runtime import ActionsRuntime
from rubricate.bot.view_state import decode_views, digest, view_path
from rubricate.errors import RateLimited
from rubricate.github.adapter import GitHubAdapter
from rubricate.serve import budget, outbox, write_pace
from rubricate.serve.context import WorkerContext
from rubricate.serve.queue import hold_pr

if TYPE_CHECKING:
    from rubricate.action.handles import GitHubClient


def publish_pr(
    ctx: WorkerContext, repo: str, pr: int, now: datetime | None = None, *, again: bool = False
) -> int:
    """Write the PR's pending views; the number of effects applied. `again` says the job ran
    before (killed, or failed): a status is then looked for on the commit before it is set."""
    now = now or datetime.now(timezone.utc)
    with ctx.connections.borrow() as conn:
        hold_pr(conn, repo, pr)
        up_to, installation, effects, doubted = outbox.pending(conn, repo, pr)
        if not effects:
            return 0
        until = budget.blocked_until(conn, installation, now)
        if until is not None:
            raise RateLimited(until)
        github = ctx.tokens.client(installation)
        before = budget.last_headers(github.requester)
        runtime = ActionsRuntime(stream=sys.stderr)
        runtime.mask(ctx.tokens.token(installation))
        adapter = budget.Budgeted(
            GitHubAdapter(github, repo, bot_login=ctx.bot_login()),
            write_pace.pacer(conn, installation),
        )
        api = OneCheckRun(OneStatus(adapter) if again else adapter)
        path = view_path(repo, pr)
        row = conn.execute("SELECT data FROM rubricate_extras WHERE path = %s", (path,)).fetchone()
        views = decode_views(bytes(row[0]) if row else None, pr)
        try:  # a rate limit stops the effect it met, not `apply`: `api.limited` holds it
            executor = Executor(
                cast("GitHubClient", api), None, runtime, views, views_trusted=True, doubted=doubted
            )
            result = executor.apply(effects)
        finally:
            seen = budget.seen_since(github.requester, before)
            with conn.transaction():
                budget.record(conn, installation, now, **seen)
        with conn.transaction():
            write = result.views.writer()
            locked = conn.execute(
                "SELECT data FROM rubricate_extras WHERE path = %s FOR UPDATE", (path,)
            ).fetchone()
            data = write(bytes(locked[0]) if locked else None)
            if data is not None:
                conn.execute(
                    "INSERT INTO rubricate_extras (path, data) VALUES (%s, %s)"
                    " ON CONFLICT (path) DO UPDATE SET data = excluded.data",
                    (path, data),
                )
            if not result.errors and api.limited is None:
                outbox.mark_published(conn, repo, pr, up_to)
        if api.limited is not None:  # the views it finished are kept: the retry goes on from them
            budget.stopped(conn, installation, now, api.limited)
            raise api.limited
        result.raise_errors()
        return len(effects)


class OneCheckRun:
    """A GitHub client whose check runs are created once per content: a publish killed after
    creating a run, before its commit, finds that run on retry instead of creating a second."""

    def __init__(self, api: Any) -> None:
        self._api = api

    def __getattr__(self, name: str) -> Any:
        return getattr(self._api, name)

    def create_check_run(self, head_sha: str, name: str, *rest: Any) -> int:
        """The id of the head's run with this very content (the executor's conclusion, output
        and details URL), created when there is none."""
        key = digest([head_sha, name, *rest])
        found: int | None = self._api.find_check_run(head_sha, name, key)
        if found is not None:
            return found
        created: int = self._api.create_check_run(head_sha, name, *rest, external_id=key)
        return created


class OneStatus:
    """A GitHub client that sets a status only when the commit's newest one of that context
    differs: a publish run again after a kill does not post the status it already set."""

    def __init__(self, api: Any) -> None:
        self._api = api

    def __getattr__(self, name: str) -> Any:
        return getattr(self._api, name)

    def set_status(
        self, sha: str, state: str, description: str, context: str, target_url: str | None
    ) -> None:
        """Set the status unless the commit already shows it."""
        if self._api.latest_status(sha, context) == (state, description[:140]):
            return
        self._api.set_status(sha, state, description, context, target_url)
