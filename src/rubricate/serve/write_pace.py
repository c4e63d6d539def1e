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
their statuses at once, as GitHub allows. A refused job comes back when its windows have room
for the largest effect (`ROOM`), so it ends the effect it stopped in rather than taking one slot
at a time.

A refused write raises `WritesPaced(at)`: the job stops, the views it finished are kept (see
`rubricate.serve.publish`), and it is retried at `at`; the installation's other requests are not
blocked. This replaces PyGithub's own spacing, which sleeps in the worker's
thread (a PR's first publish slept 2 s between its three writes) and is kept per client, so it
never held across threads or processes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from psycopg.pq import TransactionStatus

from rubricate.bot.check_run import MAX_ANNOTATIONS
from rubricate.bot.effects import ANNOTATIONS_PER_REQUEST
from rubricate.errors import WritesPaced

if TYPE_CHECKING:
    import psycopg


WINDOWS = ((timedelta(minutes=1), 75), (timedelta(hours=1), 490))
"""Each window and the most writes admitted in it (GitHub's limits: 80 and 500)."""
ROOM = -(-MAX_ANNOTATIONS // ANNOTATIONS_PER_REQUEST)
"""The most writes one effect makes (a check run with the most annotations, 50 a request): a
refused job comes back when its windows have this much room, so the effect it stopped in ends."""
_IN_TRANSACTION = (TransactionStatus.ACTIVE, TransactionStatus.INTRANS, TransactionStatus.INERROR)
KEPT = WINDOWS[-1][0]
"""How long a write's time is kept: the longest window."""


def admit(times: Sequence[datetime], now: datetime) -> tuple[list[datetime] | None, datetime]:
    """The write times to keep when a write at `now` is admitted (None when it is not), and
    when a refused job should come back: once its windows have `ROOM` writes free. `times` are
    the admitted writes' times."""
    kept = sorted(at for at in times if now - at < KEPT)
    earliest = now
    for window, most in WINDOWS:
        inside = [at for at in kept if now - at < window]
        if len(inside) >= most:  # it comes back when `ROOM` of them have left the window
            earliest = max(earliest, inside[len(inside) - most + ROOM - 1] + window)
    return ([*kept, now] if earliest <= now else None), earliest


def take(
    conn: psycopg.Connection[Any],
    installation: int,
    clock: Callable[[], datetime] | None = None,
) -> None:
    """Admit one write of the installation now, or raise `WritesPaced` with its time. The time
    is the database's (`clock` in tests), so workers whose clocks differ share one count.

    It commits its own transaction, so the installation's row is locked only while the count is
    read and extended: called inside an open transaction, it would hold that lock (and make
    every worker's writes for the installation wait) until the caller's transaction ends, so it
    refuses to."""
    if conn.info.transaction_status in _IN_TRANSACTION:  # a broken one fails on its own below
        raise RuntimeError("write_pace.take needs a connection outside any open transaction")
    with conn.transaction():
        conn.execute(
            "INSERT INTO rubricate_budgets (installation, updated_at) VALUES (%s, now())"
            " ON CONFLICT (installation) DO NOTHING",
            (installation,),
        )
        row = conn.execute(
            "SELECT write_times, clock_timestamp() FROM rubricate_budgets"
            " WHERE installation = %s FOR UPDATE",
            (installation,),
        ).fetchone()
        if row is None:  # inserted above, under this transaction
            raise RuntimeError(f"no budget row for installation {installation}")
        times, database_now = row
        now: datetime = clock() if clock is not None else database_now
        kept, earliest = admit(times or [], now)
        if kept is None:
            raise WritesPaced(earliest)
        conn.execute(
            "UPDATE rubricate_budgets SET write_times = %s WHERE installation = %s",
            (kept, installation),
        )


def pacer(conn: psycopg.Connection[Any], installation: int) -> Callable[[], None]:
    """`take` for one installation on one connection, as `budget.Budgeted` calls it."""
    return lambda: take(conn, installation)
