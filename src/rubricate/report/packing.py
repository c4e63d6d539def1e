"""Work split into groups of about equal cost, one group a process (pure).

The busiest items go first, each to the group that costs least so far (the greedy longest-first
rule): a first report's author pages into its groups (`cached.groups`), a large ledger's shards
into its parsers' (`pool.parse_in_parallel`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def packed(costs: Mapping[K, float], count: int, sent: float = 1.0) -> list[list[K]]:
    """The items of `costs` (item → cost) in `count` groups (some perhaps empty) of about equal
    cost, each group's items costliest first, items of equal cost in the order `costs` gives
    them. An item costs `sent` times its cost in every group but the first (the first is
    worked by this process, the others are sent to a pool and their results sent back)."""
    groups: list[list[K]] = [[] for _ in range(count)]
    loads = [0.0] * count
    for item in sorted(costs, key=lambda k: -costs[k]):
        least = loads.index(min(loads))
        groups[least].append(item)
        loads[least] += costs[item] * (1 if least == 0 else sent)
    return groups
