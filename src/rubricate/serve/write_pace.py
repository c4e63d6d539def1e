"""Each installation's pace of content-creating requests, shared by every worker through
PostgreSQL: a write too early puts its job back until its time, never sleeps (shell:
PostgreSQL).

GitHub allows an installation no more than 80 content-creating requests (anything but a read)
a minute and 500 an hour. The times of an installation's writes of the last hour are kept in
`rubricate_budgets.write_times` (migration 4), read and extended under the installation's row
lock, so two workers never admit the same write: a write is admitted while fewer than `WINDOWS`
allow were admitted in the minute and in the hour before it (75 and 490, a margin for the time a
request takes to reach GitHub after its admission), else it may come when the oldest of them
leaves the window. A burst within the limits is not spread out: forty PRs opened at once get
their statuses at once, as GitHub allows.

A refused write raises `WritesPaced(at)`: the job stops, its writes so far stand (each is
idempotent, see `rubricate.serve.publish`), and it is retried at `at`; the installation's other
requests are not blocked. This replaces PyGithub's own spacing, which sleeps in the worker's
thread (a PR's first publish slept 2 s between its three writes) and is kept per client, so it
never held across threads or processes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from rubricate.errors import WritesPaced

if TYPE_CHECKING:
    import psycopg


WINDOWS = ((timedelta(minutes=1), 75), (timedelta(hours=1), 490))
"""Each window and the most writes admitted in it (GitHub's limits: 80 and 500)."""
KEPT = WINDOWS[-1][0]
"""How long a write's time is kept: the longest window."""


def admit(times: Sequence[datetime], now: datetime) -> tuple[list[datetime] | None, datetime]:
    """The write times to keep when a write at `now` is admitted (None when it is not), and
    the earliest time it would be. `times` are the admitted writes' times."""
    kept = sorted(at for at in times if now - at < KEPT)  # workers' clocks may differ a little
    earliest = now
    for window, most in WINDOWS:
        inside = [at for at in kept if now - at < window]
        if len(inside) >= most:  # it may come when enough of them have left the window
            earliest = max(earliest, inside[len(inside) - most] + window)
    return ([*kept, now] if earliest <= now else None), earliest


def take(
    conn: psycopg.Connection[Any],
    installation: int,
    clock: Callable[[], datetime] | None = None,
) -> None:
    """Admit one write of the installation now, or raise `WritesPaced` with its time."""
    now = (clock or _utc_now)()
    with conn.transaction():
        conn.execute(
            "INSERT INTO rubricate_budgets (installation, updated_at) VALUES (%s, %s)"
            " ON CONFLICT (installation) DO NOTHING",
            (installation, now),
        )
        row = conn.execute(
            "SELECT write_times FROM rubricate_budgets WHERE installation = %s FOR UPDATE",
            (installation,),
        ).fetchone()
        kept, earliest = admit(row[0] or [] if row else [], now)
        if kept is None:
            raise WritesPaced(earliest)
        conn.execute(
            "UPDATE rubricate_budgets SET write_times = %s WHERE installation = %s",
            (kept, installation),
        )


def pacer(conn: psycopg.Connection[Any], installation: int) -> Callable[[], None]:
    """`take` for one installation on one connection, as `budget.Budgeted` calls it."""
    return lambda: take(conn, installation)


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)
