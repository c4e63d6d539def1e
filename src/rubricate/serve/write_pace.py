"""Each installation's pace of content-creating requests, shared by every worker through
PostgreSQL: a write too early puts its job back until its time, never sleeps (shell:
PostgreSQL).

GitHub allows an installation no more than 80 content-creating requests (anything but a read)
a minute and 500 an hour, and asks for about a second between them. Each limit is kept as a
generic cell rate (GCRA): a write is admitted when it comes no earlier than the cell's
theoretical arrival time less its tolerance, and then moves that time one interval on. A cell
of interval `T` and burst `B` admits at most `B + W / T` writes in any window of `W` seconds,
so the minute's cell (1 s, 15) admits at most 75 in a minute and the hour's (9 s, 90) at most
490 in an hour, each with a margin for the time a request takes to reach GitHub after its
admission. The times are kept in `rubricate_budgets` (migration 4), read and moved under the
installation's row lock, so two workers never admit the same slot.

A refused write raises `WritesPaced(at)`: the job stops, its writes so far stand (each is
idempotent, see `rubricate.serve.publish`), and it is retried at `at`; the installation's other
requests are not blocked. This replaces PyGithub's own spacing, which sleeps in the worker's
thread (a PR's first publish slept 2 s between its three writes) and is kept per client, so it
never held across threads or processes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from rubricate.errors import WritesPaced

if TYPE_CHECKING:
    import psycopg


@dataclass(frozen=True)
class Cell:
    """One rate: a write every `interval` on average, up to `burst` at once."""

    interval: timedelta
    burst: int

    @property
    def tolerance(self) -> timedelta:
        """How far ahead of now the cell's arrival time may run."""
        return self.interval * (self.burst - 1)

    def most_in(self, window: timedelta) -> int:
        """The most writes the cell admits in any window of this length."""
        return int((window + self.tolerance) / self.interval) + 1


CELLS = (
    Cell(timedelta(seconds=1), 15),
    Cell(timedelta(seconds=9), 90),
)
"""The minute's cell, then the hour's (their columns in `rubricate_budgets`, in this order)."""
COLUMNS = ("write_minute_tat", "write_hour_tat")


def admit(
    tats: Sequence[datetime | None], now: datetime
) -> tuple[tuple[datetime, ...] | None, datetime]:
    """The cells' next arrival times when a write at `now` conforms to every cell (None when
    it does not), and the earliest time it would."""
    moved: list[datetime] = []
    earliest = now
    for cell, tat in zip(CELLS, tats, strict=True):
        due = now if tat is None or tat < now else tat
        earliest = max(earliest, due - cell.tolerance)
        moved.append(due + cell.interval)
    return (tuple(moved) if earliest <= now else None), earliest


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
            f"SELECT {', '.join(COLUMNS)} FROM rubricate_budgets WHERE installation = %s"
            " FOR UPDATE",
            (installation,),
        ).fetchone()
        moved, earliest = admit(tuple(row) if row else (None,) * len(CELLS), now)
        if moved is None:
            raise WritesPaced(earliest)
        conn.execute(
            f"UPDATE rubricate_budgets SET {', '.join(f'{c} = %s' for c in COLUMNS)}"
            " WHERE installation = %s",
            (*moved, installation),
        )


def pacer(conn: psycopg.Connection[Any], installation: int) -> Callable[[], None]:
    """`take` for one installation on one connection, as `budget.Budgeted` calls it."""
    return lambda: take(conn, installation)


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)
