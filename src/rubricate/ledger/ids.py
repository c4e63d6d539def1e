"""The id index: every event id of the ledger, so an append can skip ids already present
without reading every shard (pure: ids to bytes and back).

An id is unique across the whole ledger. `.rubricate/ids/<x>.jsonl` holds the ids whose sha256
starts with the hex digit `x`, one JSON string a line, sorted; an append rewrites only the
buckets of its new ids. A derived file like the others: a full recompute rebuilds it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

from rubricate.ledger.paths import ID_DIR


def id_bucket(event_id: str) -> str:
    """The index file that holds this id."""
    digit = hashlib.sha256(event_id.encode("utf-8", "surrogatepass")).hexdigest()[0]
    return f"{ID_DIR}{digit}.jsonl"


def id_files(ids: Iterable[str]) -> dict[str, bytes]:
    """Every index file for these ids."""
    buckets: dict[str, set[str]] = {}
    for event_id in ids:
        buckets.setdefault(id_bucket(event_id), set()).add(event_id)
    return {path: encode_ids(found) for path, found in sorted(buckets.items())}


def read_ids(data: bytes) -> set[str]:
    """The ids of one index file; ValueError when it is not one."""
    ids = set()
    for line in data.decode().split("\n")[:-1]:
        value = json.loads(line)
        if not isinstance(value, str):
            raise ValueError("an id index line must be a JSON string")
        ids.add(value)
    if encode_ids(ids) != data:
        raise ValueError("an id index file must be sorted, one id a line")
    return ids


def encode_ids(ids: Iterable[str]) -> bytes:
    """One index file holding these ids."""
    return "".join(json.dumps(i) + "\n" for i in sorted(ids)).encode()
