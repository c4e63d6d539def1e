"""Check a data branch's files: schema, ids, shard placement, derived files (pure)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rubricate.config import ReputationConfig
from rubricate.ledger.cache import head_config, read_head
from rubricate.ledger.codec import ParsedLedger, decode_shard, is_shard, parse_ledger
from rubricate.ledger.derive import derive_files
from rubricate.ledger.derive import recorded_config as reputation_config
from rubricate.ledger.paths import CACHE_PATH, REPUTATION_PATH, is_derived


@dataclass(frozen=True)
class VerifyReport:
    """What `ledger verify` found; clean when there are no problems."""

    parsed: ParsedLedger
    stale: tuple[str, ...]
    config: ReputationConfig
    expected: Mapping[str, bytes]

    @property
    def problems(self) -> list[str]:
        """Every problem as one line of text."""
        lines = [
            f"{p}: corrupt line (kept aside, skipped by the fold)" for p in self.parsed.corrupt
        ]
        lines += [f"{p}" for p in self.parsed.duplicates]
        lines += [f"{p}" for p in self.parsed.misplaced]
        lines += self.stale
        return lines

    @property
    def fixable(self) -> bool:
        """True when some derived file differs from a full recompute (`verify --fix` rebuilds)."""
        return bool(self.stale)

    @property
    def clean(self) -> bool:
        """True when nothing is wrong."""
        return not self.problems


def recorded_config(files: Mapping[str, bytes]) -> ReputationConfig | None:
    """The reputation config the derived files were built with, when they say."""
    recorded = head_config(read_head(files[CACHE_PATH])) if CACHE_PATH in files else None
    if recorded is None and REPUTATION_PATH in files:
        recorded = reputation_config(files[REPUTATION_PATH])
    return recorded


def verify_files(
    files: Mapping[str, bytes], config: ReputationConfig | None = None, key: bytes | None = None
) -> VerifyReport:
    """Parse the ledger (checking ids, and signatures with a `key`) and compare every derived
    file with a full recompute."""
    parsed = parse_ledger({p: decode_shard(d) for p, d in files.items() if is_shard(p)}, key)
    used = config or recorded_config(files) or ReputationConfig()
    expected = derive_files(parsed, used)
    stale = [f"{p}: missing" for p in sorted(expected) if p not in files]
    stale += [
        f"{p}: out of date" for p in sorted(expected) if p in files and files[p] != expected[p]
    ]
    stale += [
        f"{p}: not derived from the ledger"
        for p in sorted(files)
        if is_derived(p) and p not in expected
    ]
    return VerifyReport(parsed, tuple(stale), used, expected)


def json_differences(old: Any, new: Any, where: str = "") -> list[str]:
    """Paths where two JSON values differ: `repos.o/r.authors.a.reputation: 0.5 → 0.6`."""
    if isinstance(old, dict) and isinstance(new, dict):
        found: list[str] = []
        for key in sorted(set(old) | set(new), key=str):
            path = f"{where}.{key}" if where else str(key)
            found += json_differences(old.get(key), new.get(key), path)
        return found
    if old != new:
        return [f"{where or '(top)'}: {json.dumps(old)} → {json.dumps(new)}"]
    return []
