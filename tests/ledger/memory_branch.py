"""A data branch held in memory as `{path: bytes}`, appended to the way the stores do."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rubricate.ledger.codec import decode_shard, is_shard, parse_ledger
from rubricate.ledger.derive import derive_files
from rubricate.ledger.event import Event
from rubricate.ledger.paths import git_blob_id, is_derived
from rubricate.ledger.plan import AppendPlan, plan_append, prepare
from rubricate.ledger.reputation_config import ReputationConfig

DEFAULT = ReputationConfig()


def apply_events(
    tree: dict[str, bytes], events: Sequence[Event], config: ReputationConfig | None = None
) -> AppendPlan:
    """Append to an in-memory branch the way the stores do."""
    ids = {p: git_blob_id(d) for p, d in tree.items()}
    plan = plan_append(ids, lambda paths: {p: tree[p] for p in paths}, prepare(events), config)
    tree.update(plan.files)
    for path in plan.deletions:
        del tree[path]
    return plan


def full_derive(tree: Mapping[str, bytes], config: ReputationConfig = DEFAULT) -> dict[str, bytes]:
    """Every derived file recomputed from the branch's whole ledger."""
    parsed = parse_ledger({p: decode_shard(d) for p, d in tree.items() if is_shard(p)})
    return derive_files(parsed, config)


def derived_only(tree: Mapping[str, bytes]) -> dict[str, bytes]:
    """The branch's derived files."""
    return {p: d for p, d in tree.items() if is_derived(p)}
