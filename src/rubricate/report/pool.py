"""Work spread over the cores (shell: processes): a pool of processes, one per core, and the
ledger's shards parsed by it, or the job files of a first report (`cached_in_parallel`).

Nothing depends on a pool running: where none can start (no `/dev/shm`, say) or a worker dies
(killed for memory), this process does the work it was given, with the same result.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from concurrent.futures import BrokenExecutor, Executor, Future, ProcessPoolExecutor
from typing import Any, TypeVar

from rubricate.bulk import gc_paused
from rubricate.ledger import codec
from rubricate.ledger.cache import FoldCache
from rubricate.ledger.codec import ParsedLedger, ShardParse, combine_shards
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.report.cached import Group, GroupSources, combined, group_sources, groups
from rubricate.report.model import Sources
from rubricate.report.packing import packed
from rubricate.report.refresh import Kept

T = TypeVar("T")
PARALLEL_PARSE_FROM = 4_000_000
"""Ledgers of this many characters and more (about 5,000 events) are parsed on every core."""
PARALLEL_JOBS_FROM = 1000
"""A first report made from the job files of this many jobs and more (about 5,000 events) is
made on every core."""
SENT_COST = 1.4
"""What parsing a shard in a worker costs against parsing it here: its events come back pickled."""


def parse_in_parallel(
    texts: dict[str, str],
    workers: int | None = None,
    parallel_from: int = PARALLEL_PARSE_FROM,
    key: bytes | None = None,
) -> ParsedLedger:
    """The ledger of these shards (path → text), read as `parse_ledger` reads it with `key`. A
    large one is parsed by this process and a pool of others, each given whole shards of about
    equal cost."""
    workers = workers or os.cpu_count() or 1
    pool = start_pool(workers - 1) if sum(map(len, texts.values())) >= parallel_from else None
    if pool is None:
        return combine_shards(_parse_group(texts, key), key)
    sizes = {path: len(text) for path, text in texts.items()}
    groups = [{p: texts[p] for p in paths} for paths in packed(sizes, workers, SENT_COST)]
    with pool:
        sent = [(submit(pool, _parse_group, group, key), group) for group in groups[1:]]
        parses = _parse_group(groups[0], key)
        for future, group in sent:
            theirs: list[ShardParse] = outcome(future, _parse_group, group, key)
            parses += theirs
    return combine_shards(parses, key)


def cached_in_parallel(
    cache: FoldCache,
    texts: Mapping[str, str],
    config: ReputationConfig,
    key: bytes | None = None,
    workers: int | None = None,
    parallel_from: int = PARALLEL_JOBS_FROM,
) -> tuple[Sources, Kept]:
    """The sources of the ledger of these shards (path → text) from its lines and the fold
    cache that verified for them (`cached`), and what to keep of them: with many jobs, each
    group of author pages is made by this process or a pool of others, one group each;
    LedgerError when a line or job does not fit the cache."""
    workers = workers or os.cpu_count() or 1
    made = groups(cache, texts, workers if len(cache.jobs) >= parallel_from else 1)
    pool = start_pool(len(made) - 1)
    if pool is None:
        return combined(cache, (_sources(group, config, key) for group in made))
    with pool:
        sent = [(submit(pool, _sources, group, config, key), group) for group in made[1:]]
        done = [_sources(made[0], config, key)]
        for future, group in sent:
            theirs: GroupSources = outcome(future, _sources, group, config, key)
            done.append(theirs)
    return combined(cache, done)


def _sources(group: Group, config: ReputationConfig, key: bytes | None) -> GroupSources:
    with gc_paused():
        return group_sources(group, config, key)


def _parse_group(texts: dict[str, str], key: bytes | None = None) -> list[ShardParse]:
    with gc_paused():
        return [codec.parse_shard(path, text, key) for path, text in texts.items()]


def start_pool(workers: int) -> Executor | None:
    """A pool of `workers` processes, or None with fewer than one or where none can start."""
    if workers < 1:
        return None
    try:
        return ProcessPoolExecutor(workers)
    except (OSError, NotImplementedError):  # no working semaphores (no /dev/shm): one process
        return None


def submit(pool: Executor, function: Callable[..., T], *args: Any) -> Future[T] | None:
    """`function(*args)` sent to the pool; None when the pool is broken already."""
    try:
        return pool.submit(function, *args)
    except BrokenExecutor:
        return None


def outcome(future: Future[T] | None, function: Callable[..., T], *args: Any) -> T:
    """What the pool's worker returned for `function(*args)`, or the same computed here when
    the pool broke before it could."""
    try:
        if future is not None:
            return future.result()
    except BrokenExecutor:
        pass
    return function(*args)
