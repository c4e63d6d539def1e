"""Speed for work over a whole ledger: the cyclic collector paused while it runs (pure: no I/O,
it only toggles the interpreter's collector).

Folding a ledger makes millions of small objects and no cycles; the collector's passes over them
cost more than the work. The shell applies `bulk` at its entry points (the stores' reads and
writes, `ledger verify`, `report`); the domain modules know nothing of it.
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


def bulk(function: Callable[P, R]) -> Callable[P, R]:
    """Run a function with the collector paused."""

    @wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with gc_paused():
            return function(*args, **kwargs)

    return wrapper
