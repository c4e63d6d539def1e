"""A worker that stopped on its own (its database went away) starts again every half second for
the first seconds of an outage, when a restarted database comes back, then ever more slowly."""

from __future__ import annotations

from rubricate.serve.server import (
    QUICK_RESTARTS_FOR,
    RESTART_FIRST,
    RESTART_LAST,
    restart_wait,
)


def waits(stops: list[tuple[float, float]]) -> list[float]:
    """The waits after each stop, given (seconds the worker ran, seconds into the outage)."""
    found, wait = [], RESTART_FIRST
    for ran_for, down_for in stops:
        wait = restart_wait(wait, ran_for, down_for)
        found.append(wait)
    return found


def test_the_first_seconds_of_an_outage_are_tried_every_half_second() -> None:
    quick = [(0.01, step * RESTART_FIRST) for step in range(int(QUICK_RESTARTS_FOR / 0.5))]
    assert set(waits(quick)) == {RESTART_FIRST}


def test_a_long_outage_backs_off_to_the_longest_wait() -> None:
    stops = [(0.01, QUICK_RESTARTS_FOR + step) for step in range(12)]
    assert waits(stops)[:4] == [1.0, 2.0, 4.0, 8.0]
    assert waits(stops)[-1] == RESTART_LAST


def test_a_worker_that_ran_a_while_starts_a_new_outage_quickly() -> None:
    assert restart_wait(RESTART_LAST, RESTART_LAST + 1, 0.0) == RESTART_FIRST
    assert restart_wait(RESTART_LAST, RESTART_LAST + 1, QUICK_RESTARTS_FOR * 5) == RESTART_FIRST
