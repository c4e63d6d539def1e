"""Decide what an append writes: new shard lines and regenerated derived files (pure).

`plan_full` folds the whole ledger; `try_incremental` re-folds only the touched jobs from the
fold cache (see `rubricate.ledger.cache` for what must verify first, and the id index), and
gives exactly the files a full recompute gives (a test pins this).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import ValidationError

from rubricate.ledger.cache import (
    CachedJob,
    FoldCache,
    bucket_path,
    cache_head,
    derived_digest,
    derived_entries,
    encode_ids,
    head_config,
    id_bucket,
    known_ids,
    load_cache,
    read_head,
)
from rubricate.ledger.codec import (
    append_lines,
    canonical,
    decode_shard,
    encode_shard,
    is_shard,
    parse_ledger,
    shard_for,
    shard_path,
)
from rubricate.ledger.derive import derive_files, job_file, recorded_config, summary_files
from rubricate.ledger.event import Event
from rubricate.ledger.fold import fold_job
from rubricate.ledger.paths import (
    BUCKET_DIR,
    CACHE_PATH,
    REPUTATION_PATH,
    Layout,
    git_blob_id,
    is_derived,
)
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.ledger.trust import key_id, signed

Reader = Callable[[Sequence[str]], Mapping[str, bytes]]
"""Reads files of the tree being planned on: paths → contents."""


@dataclass(frozen=True)
class AppendPlan:
    """What to write: the events that are new, and the files with their new content."""

    added: tuple[Event, ...]
    present: int
    files: Mapping[str, bytes] = field(default_factory=dict)
    deletions: tuple[str, ...] = ()
    incremental: bool = False


def plan_full(
    shards: Mapping[str, bytes],
    derived_paths: Iterable[str],
    batch: Sequence[Event],
    config: ReputationConfig,
    key: bytes | None = None,
) -> AppendPlan:
    """Fold the whole ledger with the new events; delete derived files no longer produced."""
    parsed = parse_ledger({p: decode_shard(d) for p, d in shards.items() if is_shard(p)}, key)
    known = {e.id for e in parsed.events}
    added = tuple(e for e in batch if e.id not in known)
    texts = appended({p: decode_shard(d) for p, d in shards.items()}, added)
    new_shards = {**parsed.shards, **{p: git_blob_id(d) for p, d in texts.items()}}
    grown = replace(parsed, events=parsed.events + added, shards=new_shards)
    files = {**texts, **derive_files(grown, config)}
    stale = tuple(sorted(p for p in derived_paths if is_derived(p) and p not in files))
    return AppendPlan(added, len(batch) - len(added), files, stale)


def appended(
    texts: Mapping[str, str], added: Sequence[Event], paths: Iterable[str] = ()
) -> dict[str, bytes]:
    """The shards that receive new lines, with those lines appended; `texts` holds at least the
    last shard of each month the events fall in, `paths` every shard (see `shard_for`)."""
    shards = set(paths) | set(texts)
    by_shard: dict[str, list[Event]] = {}
    for event in added:
        path = shard_for(event.at, shards, lambda p: len(encode_shard(texts.get(p, ""))))
        by_shard.setdefault(path, []).append(event)
    return {p: encode_shard(append_lines(texts.get(p, ""), evs)) for p, evs in by_shard.items()}


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


JobKey = tuple[str, int]


def try_incremental(
    head: dict[str, Any],
    tree: Mapping[str, str],
    read: Reader,
    batch: Sequence[Event],
    config: ReputationConfig,
) -> AppendPlan | None:
    """The incremental plan, reading only what it needs in one read; None if it cannot be used."""
    if not head_matches(head, tree):
        return None
    reads = incremental_reads(head["repos"], batch)
    if reads is None:
        return None
    buckets = sorted(head["buckets"])
    files = read(buckets + [p for p in reads if p in tree])
    cache = load_cache(head, {p: files[p] for p in buckets})
    if cache is None:
        return None
    return plan_incremental(cache, files, batch, config, derived_entries(tree))


def head_matches(head: dict[str, Any], tree: Mapping[str, str]) -> bool:
    """True when the tree holds exactly the shards, buckets and derived files the head records."""
    try:
        shards = {p: blob for p, blob in tree.items() if is_shard(p)}
        buckets = {p: blob for p, blob in tree.items() if p.startswith(BUCKET_DIR)}
        named = isinstance(head["repos"], list) and all(isinstance(r, str) for r in head["repos"])
        derived = head["derived"] == derived_digest(derived_entries(tree))
        return bool(named and derived and (head["shards"], head["buckets"]) == (shards, buckets))
    except (KeyError, AttributeError, TypeError):
        return False


def incremental_reads(known: Sequence[str], batch: Sequence[Event]) -> list[str] | None:
    """The files `plan_incremental` needs, or None when the repositories would change the layout."""
    repos = set(known) | {e.repo for e in batch}
    if len(repos) > 1 and repos != set(known):
        return None
    layout = Layout(tuple(sorted(repos)))
    jobs = {layout.job_path(e.repo, e.pr) for e in batch}
    return sorted(jobs | {shard_path(e.at) for e in batch} | {id_bucket(e.id) for e in batch})


def plan_incremental(
    cache: FoldCache,
    files: Mapping[str, bytes],
    batch: Sequence[Event],
    config: ReputationConfig,
    derived: Mapping[str, str],
) -> AppendPlan | None:
    """Re-fold only the touched jobs; None when what the cache names does not verify.

    `files` holds the touched shards, job files and id-index files that exist; `derived` is
    every derived file's blob id in the tree (the cache head left out).
    """
    known = known_ids(files, {id_bucket(e.id) for e in batch})
    if known is None:
        return None
    added = tuple(e for e in batch if e.id not in known[id_bucket(e.id)])
    if not added:
        return AppendPlan((), len(batch), {}, (), True)
    layout = Layout(tuple(sorted(set(cache.repos) | {e.repo for e in added})))
    by_job: dict[JobKey, list[Event]] = {}
    for event in added:
        by_job.setdefault((event.repo, event.pr), []).append(event)
    existing = {key: verified_job(cache, layout, files, key) for key in by_job}
    if any(events is None for events in existing.values()):
        return None
    written = appended({p: decode_shard(d) for p, d in files.items() if is_shard(p)}, added)
    for path in {id_bucket(e.id) for e in added}:
        written[path] = encode_ids(known[path] | {e.id for e in added if id_bucket(e.id) == path})
    jobs, authors = _refold(cache, layout, existing, by_job, written)
    grown = replace(
        cache,
        config=config,
        shards={**cache.shards, **{p: git_blob_id(d) for p, d in written.items() if is_shard(p)}},
        jobs=jobs,
    )
    touched = {bucket_path(pr) for _, pr in by_job}
    written.update(summary_files(grown, authors if cache.config == config else None, touched))
    gone = _departed_authors(authors, jobs.values())
    deletions = tuple(layout.author_badge(r, a, ext) for r, a in gone for ext in ("json", "svg"))
    after = {p: i for p, i in derived.items() if p not in deletions}
    after.update({p: git_blob_id(d) for p, d in written.items() if is_derived(p)})
    written[CACHE_PATH] = cache_head(grown, after)
    return AppendPlan(added, len(batch) - len(added), written, deletions, True)


def verified_job(
    cache: FoldCache, layout: Layout, files: Mapping[str, bytes], key: JobKey
) -> list[Event] | None:
    """A job's recorded events, when its job file and cached facts are what the fold gives."""
    data = files.get(layout.job_path(*key))
    cached = cache.jobs.get(key)
    if cached is None:
        return [] if data is None else None
    if data is None or git_blob_id(data) != cached.file_id:
        return None
    try:
        events = [Event.model_validate(raw) for raw in json.loads(data)["events"]]
        summary = fold_job(events)
    except (ValueError, KeyError, TypeError, ValidationError):
        return None
    if summary.facts != cached.facts or job_file(summary) != data:
        return None
    return events


def _refold(
    cache: FoldCache,
    layout: Layout,
    existing: Mapping[JobKey, list[Event] | None],
    by_job: Mapping[JobKey, list[Event]],
    written: dict[str, bytes],
) -> tuple[dict[JobKey, CachedJob], dict[str, set[str]]]:
    """Fold each touched job again, writing its job file; the new rows and touched authors."""
    jobs = dict(cache.jobs)
    authors: dict[str, set[str]] = {}
    for key, new in by_job.items():
        summary = fold_job([*(existing[key] or []), *new])
        path = layout.job_path(*key)
        written[path] = job_file(summary)
        if key in jobs:
            authors.setdefault(key[0], set()).add(jobs[key].facts.author)
        authors.setdefault(key[0], set()).add(summary.facts.author)
        jobs[key] = CachedJob(summary.facts, git_blob_id(written[path]))
    return jobs, authors


def _departed_authors(
    touched: Mapping[str, set[str]], jobs: Iterable[CachedJob]
) -> list[tuple[str, str]]:
    """Touched `(repo, author)` pairs left without any job (a job's author can change)."""
    remaining = {(j.facts.repo, j.facts.author) for j in jobs}
    return sorted(
        (r, a) for r, logins in touched.items() for a in logins if (r, a) not in remaining
    )
