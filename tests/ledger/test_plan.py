"""Planning an append: a claim of the id index is taken only when the month's shards bear it
out, read one shard at a time until none is left."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rubricate.ledger.plan import appended, in_the_shards, lines_of
from tests.ledger.factory import scored

EVENTS = [scored("review_scored", 1 + i // 5, i * 0.08, f"d:{i}", [3] * 5) for i in range(1500)]
FILES = appended({}, lines_of(EVENTS))
SHARDS = sorted(FILES)


def _claims(shard: str) -> tuple[bool, list[list[str]]]:
    """Whether the first event of `shard`, claimed present, is found; the reads it took."""
    calls: list[list[str]] = []

    def read(paths: Sequence[str]) -> Mapping[str, bytes]:
        calls.append(list(paths))
        return {p: FILES[p] for p in paths}

    text = FILES[shard].decode()
    claim = next(e for e in EVENTS if e.id in text)
    return in_the_shards([claim], [], SHARDS, read, None), calls


def test_a_claim_in_a_recent_shard_stops_the_reading_there() -> None:
    assert len(SHARDS) >= 4
    found, calls = _claims(SHARDS[-2])
    assert found
    assert calls == [[SHARDS[-1]], [SHARDS[-2]]]


def test_a_claim_in_the_oldest_shard_is_found_one_shard_at_a_time() -> None:
    found, calls = _claims(SHARDS[0])
    assert found
    assert calls == [[SHARDS[-1]], *([p] for p in reversed(SHARDS[:-1]))]


def test_a_claim_no_shard_holds_is_refused() -> None:
    planted = scored("approved", 9, 1, "planted", [5] * 5)
    assert not in_the_shards(
        [planted], [], SHARDS, lambda paths: {p: FILES[p] for p in paths}, None
    )
