"""Decide what an append writes: new shard lines and regenerated derived files (pure).

Two ways, one result: `plan_full` folds the whole ledger; `plan_incremental` re-folds only the
jobs the new events touch, using the fold cache. Both give exactly the files a full recompute
gives (a test pins this); the incremental way declines (returns None) whenever the cache cannot
be trusted, and the caller then plans in full.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import ValidationError

from rubricate.config import ReputationConfig
from rubricate.ledger.cache import (
    CACHE_PATH,
    CachedJob,
    FoldCache,
    bucket_path,
    head_config,
    load_cache,
    read_head,
)
from rubricate.ledger.codec import (
    append_lines,
    canonical,
    decode_shard,
    encode_shard,
    git_blob_id,
    is_shard,
    parse_ledger,
    shard_path,
)
from rubricate.ledger.derive import Layout, derive_files, is_derived, job_file, summary_files
from rubricate.ledger.event import Event
from rubricate.ledger.fold import fold_job
from rubricate.ledger.perf import bulk

JobKey = tuple[str, int]


@dataclass(frozen=True)
class AppendPlan:
    """What to write: the events that are new, and the files with their new content."""

    added: tuple[Event, ...]
    present: int
    files: Mapping[str, bytes] = field(default_factory=dict)
    deletions: tuple[str, ...] = ()
    incremental: bool = False


def prepare(events: Iterable[Event]) -> list[Event]:
    """Events as they will read back from the ledger, each id once per job (first kept)."""
    seen: set[tuple[str, int, str]] = set()
    batch = []
    for event in events:
        key = (event.repo, event.pr, event.id)
        if key not in seen:
            seen.add(key)
            batch.append(canonical(event))
    return batch


Reader = Callable[[Sequence[str]], Mapping[str, bytes]]


@bulk
def plan_append(
    tree: Mapping[str, str], read: Reader, batch: Sequence[Event], config: ReputationConfig | None
) -> AppendPlan:
    """Plan an append onto a tree (path → blob id), reading file contents through `read`.

    Incremental when the fold cache matches the tree, in full otherwise. Without a `config`,
    the one recorded in the cache is kept (the defaults when there is none).
    """
    head = read_head(read([CACHE_PATH])[CACHE_PATH]) if CACHE_PATH in tree else None
    used = config or head_config(head) or ReputationConfig()
    loaded = _matching_cache(head, tree, read, batch)
    if loaded is not None:
        plan = plan_incremental(loaded[0], loaded[1], batch, used)
        if plan is not None:
            return plan
    return plan_full(read([p for p in tree if is_shard(p)]), tree, batch, used)


def _matching_cache(
    head: dict[str, Any] | None, tree: Mapping[str, str], read: Reader, batch: Sequence[Event]
) -> tuple[FoldCache, Mapping[str, bytes]] | None:
    """The cache and the files an incremental append needs, in one read; None if unusable."""
    if head is None or not head_matches(head, tree):
        return None
    reads = incremental_reads(tuple(head["repos"]), batch)
    if reads is None:
        return None
    buckets = list(head["buckets"])
    files = read(buckets + [p for p in reads if p in tree])
    cache = load_cache(head, {p: files[p] for p in buckets})
    return None if cache is None else (cache, files)


def plan_full(
    shards: Mapping[str, bytes],
    derived_paths: Iterable[str],
    batch: Sequence[Event],
    config: ReputationConfig,
) -> AppendPlan:
    """Fold the whole ledger with the new events; delete derived files no longer produced."""
    parsed = parse_ledger({p: decode_shard(d) for p, d in shards.items() if is_shard(p)})
    known = {(e.repo, e.pr, e.id) for e in parsed.events}
    added = tuple(e for e in batch if (e.repo, e.pr, e.id) not in known)
    texts = _appended({p: decode_shard(d) for p, d in shards.items()}, added)
    new_shards = {**parsed.shards, **{p: git_blob_id(d) for p, d in texts.items()}}
    grown = replace(parsed, events=parsed.events + added, shards=new_shards)
    files = {**texts, **derive_files(grown, config)}
    stale = tuple(sorted(p for p in derived_paths if is_derived(p) and p not in files))
    return AppendPlan(added, len(batch) - len(added), files, stale)


def head_matches(head: dict[str, Any], tree: Mapping[str, str]) -> bool:
    """True when the tree holds exactly the shards, and the buckets, the cache head names."""
    try:
        shards = {p: blob for p, blob in tree.items() if is_shard(p)}
        buckets = head["buckets"].items()
        named = isinstance(head["repos"], list) and all(isinstance(r, str) for r in head["repos"])
        return bool(
            named and head["shards"] == shards and all(tree.get(p) == i for p, i in buckets)
        )
    except (KeyError, AttributeError, TypeError):
        return False


def incremental_reads(known: Sequence[str], batch: Sequence[Event]) -> list[str] | None:
    """The files `plan_incremental` needs, or None when the repositories would change the layout."""
    repos = set(known) | {e.repo for e in batch}
    if len(repos) > 1 and repos != set(known):
        return None
    layout = Layout(tuple(sorted(repos)))
    jobs = {layout.job_path(e.repo, e.pr) for e in batch}
    return sorted(jobs | {shard_path(e.at) for e in batch})


def plan_incremental(
    cache: FoldCache,
    files: Mapping[str, bytes],
    batch: Sequence[Event],
    config: ReputationConfig,
) -> AppendPlan | None:
    """Re-fold only the touched jobs; None when the cache does not match what it names."""
    layout = Layout(tuple(sorted(set(cache.repos) | {e.repo for e in batch})))
    by_job: dict[JobKey, list[Event]] = {}
    for event in batch:
        by_job.setdefault((event.repo, event.pr), []).append(event)
    existing = {key: _job_events(cache, layout, files, key) for key in by_job}
    if any(events is None for events in existing.values()):
        return None
    known = {(key, e.id) for key, events in existing.items() for e in events or ()}
    added = tuple(e for e in batch if ((e.repo, e.pr), e.id) not in known)
    if not added:
        return AppendPlan((), len(batch), {}, (), True)
    return _grow(cache, layout, files, existing, added, config, len(batch))


def _grow(
    cache: FoldCache,
    layout: Layout,
    files: Mapping[str, bytes],
    existing: Mapping[JobKey, list[Event] | None],
    added: tuple[Event, ...],
    config: ReputationConfig,
    batch_size: int,
) -> AppendPlan:
    texts = _appended({p: decode_shard(d) for p, d in files.items() if is_shard(p)}, added)
    jobs = dict(cache.jobs)
    authors: dict[str, set[str]] = {}
    written: dict[str, bytes] = dict(texts)
    new_by_job: dict[JobKey, list[Event]] = {}
    for event in added:
        new_by_job.setdefault((event.repo, event.pr), []).append(event)
    for key, new in new_by_job.items():
        summary = fold_job([*(existing[key] or []), *new])
        path = layout.job_path(*key)
        written[path] = job_file(summary)
        if key in jobs:
            authors.setdefault(key[0], set()).add(jobs[key].facts.author)
        authors.setdefault(key[0], set()).add(summary.facts.author)
        jobs[key] = CachedJob(summary.facts, git_blob_id(written[path]))
    grown = replace(
        cache,
        config=config,
        shards={**cache.shards, **{p: git_blob_id(d) for p, d in texts.items()}},
        events=cache.events + len(added),
        newest_at=max([e.at for e in added] + ([cache.newest_at] if cache.newest_at else [])),
        jobs=jobs,
    )
    same_config = cache.config == config
    touched = {bucket_path(pr) for _, pr in new_by_job}
    written.update(summary_files(grown, authors if same_config else None, touched))
    gone = _departed_authors(authors, jobs.values())
    deletions = tuple(layout.author_badge(r, a, ext) for r, a in gone for ext in ("json", "svg"))
    return AppendPlan(added, batch_size - len(added), written, deletions, True)


def _departed_authors(
    touched: Mapping[str, set[str]], jobs: Iterable[CachedJob]
) -> list[tuple[str, str]]:
    """Touched `(repo, author)` pairs left without any job (a job's author can change)."""
    remaining = {(j.facts.repo, j.facts.author) for j in jobs}
    return sorted(
        (r, a) for r, logins in touched.items() for a in logins if (r, a) not in remaining
    )


def _job_events(
    cache: FoldCache, layout: Layout, files: Mapping[str, bytes], key: JobKey
) -> list[Event] | None:
    data = files.get(layout.job_path(*key))
    cached = cache.jobs.get(key)
    if cached is None:
        return [] if data is None else None
    if data is None or git_blob_id(data) != cached.file_id:
        return None
    try:
        return [Event.model_validate(raw) for raw in json.loads(data)["events"]]
    except (ValueError, KeyError, TypeError, ValidationError):
        return None


def _appended(texts: Mapping[str, str], added: Sequence[Event]) -> dict[str, bytes]:
    """The shards that receive new lines, with those lines appended."""
    by_shard: dict[str, list[Event]] = {}
    for event in added:
        by_shard.setdefault(shard_path(event.at), []).append(event)
    return {p: encode_shard(append_lines(texts.get(p, ""), evs)) for p, evs in by_shard.items()}
