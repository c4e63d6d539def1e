"""Plan an append by folding the whole ledger again (pure: file contents in, files out)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from rubricate.config import ReputationConfig
from rubricate.ledger.codec import (
    append_lines,
    decode_shard,
    encode_shard,
    git_blob_id,
    is_shard,
    parse_ledger,
    shard_path,
)
from rubricate.ledger.derive import derive_files
from rubricate.ledger.event import Event
from rubricate.ledger.paths import is_derived

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


def appended(texts: Mapping[str, str], added: Sequence[Event]) -> dict[str, bytes]:
    """The shards that receive new lines, with those lines appended."""
    by_shard: dict[str, list[Event]] = {}
    for event in added:
        by_shard.setdefault(shard_path(event.at), []).append(event)
    return {p: encode_shard(append_lines(texts.get(p, ""), evs)) for p, evs in by_shard.items()}
