"""Speed for work over a whole ledger: the cyclic collector paused while it runs, and what it
made frozen when it lives to the end (pure: no I/O, it only toggles the interpreter's collector).

Folding a ledger makes millions of small objects and no cycles; the collector's passes over them
cost more than the work. The shell applies `bulk` at its entry points (the stores' reads and
writes, `ledger verify`, `report`); the domain modules know nothing of it. A report keeps what it
read and built to the end (`kept_to_the_end`), and draws its pages with collections over what
drawing makes only (`only_new_collected`).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable automatic collection inside the block, restoring the previous state after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@contextmanager
def kept_to_the_end() -> Iterator[None]:
    """`gc_paused` inside the block, and what the block made frozen after it (`gc.freeze`): it
    lives to the end of the process, so no later collection goes over it."""
    with gc_paused():
        yield
        gc.freeze()


@contextmanager
def only_new_collected() -> Iterator[None]:
    """Inside the block, collections on, over what it makes only: everything made before is
    frozen until it ends, then the collector is as it was. What an enclosing `kept_to_the_end`
    froze stays frozen (with what was made since: it cannot be told apart)."""
    was_enabled = gc.isenabled()
    was_frozen = gc.get_freeze_count() > 0
    gc.freeze()
    gc.enable()
    try:
        yield
    finally:
        if not was_frozen:
            gc.unfreeze()
        if not was_enabled:
            gc.disable()


def bulk(function: Callable[P, R]) -> Callable[P, R]:
    """Run a function with the collector paused."""

    @wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with gc_paused():
            return function(*args, **kwargs)

    return wrapper
