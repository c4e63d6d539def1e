"""The detector's threshold per kind of text a span is found in (pure).

The detector's scores are not comparable across kinds of text: documentation that quotes
prompts scores higher than a PR's own description does. So the threshold is chosen per kind,
each on benign text of that kind (out of fold, from training repositories only:
`benchmarks/train_injection.py --kinds`), holding the same share of it flagged. The kinds are
the PR's own text (`prose`: title, description, spec), a document, a data file, and code
(`judge.scan.kind_of` tells them from a scan's `where`).
"""

from __future__ import annotations

import struct

KINDS = ("prose", "docs", "data", "code")


def pack(thresholds: dict[str, float]) -> bytes:
    """The thresholds as the weights file holds them: a count, then each kind's name (its
    length, ASCII) and threshold (a little-endian double), in `KINDS` order."""
    out = bytearray([len(thresholds)])
    for name in sorted(thresholds, key=KINDS.index):
        out += bytes([len(name)]) + name.encode("ascii") + struct.pack("<d", thresholds[name])
    return bytes(out)


def unpack(raw: bytes, start: int) -> tuple[dict[str, float], int]:
    """The thresholds `pack` wrote at `start` in `raw`, and where they end.

    Raises ValueError on a kind this code does not know or a table cut short."""
    thresholds: dict[str, float] = {}
    at = start + 1
    try:
        for _ in range(raw[start]):
            size = raw[at]
            name = raw[at + 1 : at + 1 + size].decode("ascii", "replace")
            if name not in KINDS:
                raise ValueError(f"injection detector weights name an unknown kind {name!r}")
            (thresholds[name],) = struct.unpack_from("<d", raw, at + 1 + size)
            at += 1 + size + 8
    except (IndexError, struct.error) as exc:
        raise ValueError("injection detector weights have a cut-short threshold table") from exc
    return thresholds, at
