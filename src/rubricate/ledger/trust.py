"""Which ledger events can be trusted: natural-key ids and optional HMAC signatures (pure).

An event's `id` is the hash of its natural key `(kind, repo, pr, version, delivery)`; a line
whose id is anything else was not written by rubricate and is refused. Anyone who can push to
the data branch can still compute a natural key, so a repository that wants more configures a
ledger key (`RUBRICATE_LEDGER_KEY`): every event is then signed with an HMAC-SHA256 over its
canonical JSON line without the `sig` field, and an event that is unsigned or badly signed is
refused like a corrupt line, so it never reaches the gate, the job files or reputation.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable, Iterable
from json.encoder import encode_basestring_ascii
from typing import Final

from rubricate.ledger.event import Event

KEY_ENV: Final = "RUBRICATE_LEDGER_KEY"
SIGNATURE_PREFIX: Final = "hmac-sha256:"
MIN_KEY_BYTES: Final = 16
_KEY_ID_LABEL: Final = b"rubricate ledger key id"


def natural_key(kind: str, repo: str, pr: int, version: int, delivery: str) -> str:
    """The event id: hex sha256 of (kind, repo, pr, version, delivery)."""
    if type(kind) is type(repo) is type(delivery) is str and type(pr) is type(version) is int:
        quote = encode_basestring_ascii  # exactly what json.dumps does, without its machinery
        payload = f"[{quote(kind)},{quote(repo)},{pr},{version},{quote(delivery)}]"
    else:
        payload = json.dumps([kind, repo, pr, version, delivery], separators=(",", ":"))
    return hashlib.sha256(payload.encode()).hexdigest()


def expected_id(event: Event) -> str | None:
    """The id an event must have; None when it names no delivery to derive it from."""
    if event.delivery is None:
        return None
    return natural_key(event.kind, event.repo, event.pr, event.version, event.delivery)


def signed(event: Event, key: bytes) -> Event:
    """The event with its signature under `key`."""
    return event.model_copy(update={"sig": signature(event, key)})


def signature(event: Event, key: bytes) -> str:
    """`hmac-sha256:<hex>` over the event's canonical line without its `sig`."""
    body = event.model_copy(update={"sig": None}).to_line().encode("utf-8", "surrogatepass")
    return keyed_digest(key, body)


def keyed_digest(key: bytes, body: bytes, label: bytes = b"") -> str:
    """`hmac-sha256:<hex>` of `body` under `key` (after a `label` that names what else than an
    event is signed, so a signature of one kind never passes for another)."""
    return SIGNATURE_PREFIX + hmac.new(key, label + body, hashlib.sha256).hexdigest()


def key_id(key: bytes | None) -> str | None:
    """A short public name for a key (derived with the key, so it reveals nothing of it)."""
    if key is None:
        return None
    return hmac.new(key, _KEY_ID_LABEL, hashlib.sha256).hexdigest()[:16]


def refusal(event: Event, key: bytes | None = None) -> str | None:
    """Why an event is not trusted (None when it is): a forged id, or a missing or bad signature."""
    wanted = expected_id(event)
    if wanted is None:
        return "refused: no delivery, so its id cannot be checked against its natural key"
    if event.id != wanted:
        return (
            f"refused: id {event.id[:16]} is not the hash of its natural key "
            "(kind, repo, pr, version, delivery)"
        )
    if key is None:
        return None
    if event.sig is None:
        return "refused: not signed with the ledger key"
    if not same_digest(event.sig, signature(event, key)):
        return "refused: its signature does not match the ledger key"
    return None


def same_digest(given: str, wanted: str) -> bool:
    """Whether a stored signature is the wanted one, in constant time; a signature that is not
    ASCII (which `hmac.compare_digest` refuses with a TypeError) is simply not it."""
    return given.isascii() and hmac.compare_digest(given, wanted)


def trusted(events: Iterable[Event], key: bytes | None = None) -> tuple[Event, ...]:
    """The events that are trusted, in order (a job file is derived, so it is checked again)."""
    return tuple(event for event in events if refusal(event, key) is None)


def parse_key(text: str | None) -> bytes | None:
    """The ledger key from its configured text (None when unset); ValueError when too short."""
    if text is None or not text.strip():
        return None
    key = text.strip().encode("utf-8")
    if len(key) < MIN_KEY_BYTES:
        raise ValueError(
            f"the ledger key must be at least {MIN_KEY_BYTES} bytes (it has {len(key)}): "
            "use a random secret, e.g. `openssl rand -hex 32`"
        )
    return key


def resign_shard(data: bytes, key: bytes, keep: Callable[[str], bool]) -> tuple[bytes, int, int]:
    """A shard with a signature on each event that has a natural-key id, no valid signature under
    `key`, and whose line `keep` accepts (given as text that encodes back to its bytes); every
    other line stays byte for byte. Also how many it signed, and how many such events `keep`
    refused (they stay unsigned, so still refused with the key).

    Signing adds `sig` and nothing else: an event's id, fields and place are unchanged."""
    lines, count, left = [], 0, 0
    for line in data.split(b"\n"):
        event = _event_of(line)
        if event is not None and refusal(event) is None and refusal(event, key):
            if keep(line.decode("utf-8", "surrogateescape")):
                line = signed(event, key).to_line().encode("utf-8", "surrogatepass")
                count += 1
            else:
                left += 1
        lines.append(line)
    return b"\n".join(lines), count, left


def _event_of(line: bytes) -> Event | None:
    try:
        return Event.model_validate_json(line) if line.strip() else None
    except ValueError:
        return None
