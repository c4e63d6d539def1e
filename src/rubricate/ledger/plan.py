"""Decide what an append writes: new shard lines and regenerated derived files (pure).

Two ways, one result: `plan_full` folds the whole ledger; `try_incremental` re-folds only the
jobs the new events touch, using the fold cache. Both give exactly the files a full recompute
gives (a test pins this); the incremental way declines whenever anything about the cache does
not verify, and the append plans in full.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rubricate.config import ReputationConfig
from rubricate.ledger.cache import head_config, read_head
from rubricate.ledger.codec import canonical, is_shard
from rubricate.ledger.derive import recorded_config
from rubricate.ledger.event import Event
from rubricate.ledger.incremental import try_incremental
from rubricate.ledger.paths import CACHE_PATH, REPUTATION_PATH
from rubricate.ledger.perf import bulk
from rubricate.ledger.plan_full import AppendPlan as AppendPlan
from rubricate.ledger.plan_full import Reader as Reader
from rubricate.ledger.plan_full import plan_full as plan_full
from rubricate.ledger.trust import key_id, signed


def prepare(events: Iterable[Event], key: bytes | None = None) -> list[Event]:
    """Events as they will read back from the ledger, each id once (the first kept), signed
    with the ledger `key` when there is one."""
    seen: set[str] = set()
    batch = []
    for event in events:
        if event.id not in seen:
            seen.add(event.id)
            batch.append(canonical(event) if key is None else signed(canonical(event), key))
    return batch


@bulk
def plan_append(
    tree: Mapping[str, str],
    read: Reader,
    batch: Sequence[Event],
    config: ReputationConfig | None,
    key: bytes | None = None,
) -> AppendPlan:
    """Plan an append onto a tree (path → blob id), reading file contents through `read`.

    Incremental when the fold cache verifies against the tree and was built with the same
    ledger `key`, in full otherwise. Without a `config`, the one the branch records is kept
    (the defaults when it records none).
    """
    head = _head(tree, read)
    used = config or branch_config(tree, read, head)
    if head is not None and head.get("key") == key_id(key):
        plan = try_incremental(head, tree, read, batch, used)
        if plan is not None:
            return plan
    return plan_full(read([p for p in tree if is_shard(p)]), tree, batch, used, key)


@bulk
def plan_rebuild(
    tree: Mapping[str, str],
    read: Reader,
    config: ReputationConfig | None,
    key: bytes | None = None,
) -> AppendPlan:
    """Regenerate every derived file from the whole ledger, adding nothing."""
    used = config or branch_config(tree, read, _head(tree, read))
    return plan_full(read([p for p in tree if is_shard(p)]), tree, [], used, key)


def branch_config(
    tree: Mapping[str, str], read: Reader, head: dict[str, Any] | None
) -> ReputationConfig:
    """The config the branch records: the cache head's, else reputation.json's, else defaults."""
    recorded = head_config(head)
    if recorded is None and REPUTATION_PATH in tree:
        recorded = recorded_config(read([REPUTATION_PATH])[REPUTATION_PATH])
    return recorded or ReputationConfig()


def _head(tree: Mapping[str, str], read: Reader) -> dict[str, Any] | None:
    """The verified cache head of the tree, if it has one."""
    return read_head(read([CACHE_PATH])[CACHE_PATH]) if CACHE_PATH in tree else None
