"""Ledger lines to events and back, with located problems (pure: parses given text).

A line that is not JSON, or not a valid event, is never dropped silently: it becomes a
`LedgerProblem` with its `file:line`. An id seen twice keeps its first occurrence (in shard
order, then line order) and the repeat is reported as a duplicate, naming the job that holds the
id first when the repeat belongs to another job (an id is unique across the whole ledger).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from rubricate.errors import LedgerError, LedgerProblem
from rubricate.ledger.event import Event
from rubricate.ledger.paths import git_blob_id
from rubricate.ledger.trust import (
    key_id,
    natural_key,
    refusal,
    same_digest,
    signature,
    signed,
)

LEDGER_DIR = "ledger/"
SHARD_SUFFIX = ".jsonl"
SHARD_BYTES = 256 * 1024
"""A shard holding this much takes no more appends: the next start the month's next shard."""
_MONTH = re.compile(r"^ledger/(\d{4}-\d{2})(?:\.jsonl|/(\d{4})\.jsonl)$")


@dataclass(frozen=True)
class ParsedLedger:
    """Valid events (first occurrence of each id) and every located problem."""

    events: tuple[Event, ...] = ()
    corrupt: tuple[LedgerProblem, ...] = ()
    duplicates: tuple[LedgerProblem, ...] = ()
    misplaced: tuple[LedgerProblem, ...] = ()
    shards: Mapping[str, str] = field(default_factory=dict)
    """Each shard's path and git blob id, so derived files can say what they were built from."""
    key_id: str | None = None
    """The public id of the ledger key the events were checked with (None: ids only)."""


def shard_path(at: datetime) -> str:
    """The shard an event belongs in: `ledger/YYYY-MM.jsonl` by its UTC time."""
    return f"{LEDGER_DIR}{at.year:04d}-{at.month:02d}{SHARD_SUFFIX}"


def shard_month(path: str) -> str | None:
    """`YYYY-MM` of a month's shard (`ledger/YYYY-MM.jsonl`, `ledger/YYYY-MM/NNNN.jsonl`)."""
    found = _MONTH.match(path)
    return None if found is None else found[1]


def shard_for(at: datetime, paths: Iterable[str], size: Callable[[str], int]) -> str:
    """The shard new events of `at`'s month go to: the month's last shard, or the next one
    (`ledger/YYYY-MM/0001.jsonl`, …) once that one holds `SHARD_BYTES` (`size(path)`)."""
    first = shard_path(at)
    month = first[len(LEDGER_DIR) : -len(SHARD_SUFFIX)]
    mine = sorted(p for p in paths if shard_month(p) == month)
    if not mine:
        return first
    last = mine[-1]
    if size(last) < SHARD_BYTES:
        return last
    found = _MONTH.match(last)
    number = int(found[2]) if found and found[2] else 0
    return f"{LEDGER_DIR}{month}/{number + 1:04d}{SHARD_SUFFIX}"


def is_shard(path: str) -> bool:
    """True for a ledger shard path."""
    return path.startswith(LEDGER_DIR) and path.endswith(SHARD_SUFFIX)


def event_from_dict(data: Mapping[str, Any]) -> Event:
    """Validate one event; a missing id is the natural key of its delivery, a given one must be."""
    if not isinstance(data, Mapping):
        raise LedgerError("an event must be a JSON object")
    values = dict(data)
    if not isinstance(values.get("delivery"), str):
        raise LedgerError("an event needs a delivery: its id is the hash of its natural key")
    values.setdefault("id", _natural_id(values))
    try:
        event = Event.model_validate(values)
    except ValueError as exc:  # (pydantic's ValidationError)
        raise LedgerError(_described(exc)) from None
    problem = refusal(event)
    if problem is not None:
        raise LedgerError(problem)
    return event


def event_from_line(line: str) -> Event:
    """Validate one JSON line as an event (ids must be given)."""
    try:
        return Event.model_validate_json(line)
    except ValueError as exc:  # (pydantic's ValidationError)
        raise LedgerError(_described(exc)) from None


def event_from_value(value: object) -> Event:
    """Validate one JSON value as an event (ids must be given), e.g. an entry of a job file."""
    if type(value) is not dict:
        raise LedgerError(f"a JSON {type(value).__name__}, not an event object")
    try:
        return Event.model_validate(value)
    except ValueError as exc:  # (pydantic's ValidationError)
        raise LedgerError(_described(exc)) from None


def prepared_lines(events: Iterable[Event], key: bytes | None = None) -> list[tuple[Event, str]]:
    """Events as they will read back from the ledger, each id once (the first kept), signed
    with the ledger `key` when there is one, each with its line (made once).

    With a key, an event given with a signature must carry the key's own: LedgerError
    otherwise. Only unsigned events are signed; one edited after it was signed, or signed
    under another key, is never signed again (that would vouch for what nobody signed)."""
    prepared: dict[str, tuple[Event, str]] = {}
    for event in events:
        if event.id in prepared:
            continue
        line = event.to_line()
        read_back = Event.model_validate_json(line)
        if key is not None:
            if read_back.sig is not None and not same_digest(
                read_back.sig, signature(read_back, key)
            ):
                raise LedgerError(
                    f"event {read_back.id[:16]} carries a signature that does not match the "
                    "ledger key (edited after it was signed, or signed under another key): "
                    "refused, nothing appended"
                )
            read_back = signed(read_back, key)
            line = read_back.to_line()
        prepared[event.id] = (read_back, line)
    return list(prepared.values())


def _described(exc: ValueError) -> str:
    # pydantic is loaded only when the model refused an event: it words the refusal
    from pydantic import ValidationError

    from rubricate.ledger.event_model import describe_validation

    if not isinstance(exc, ValidationError):
        raise exc  # not the model's refusal: a fault, not a bad line
    return describe_validation(exc)


def parse_ledger(files: Mapping[str, str], key: bytes | None = None) -> ParsedLedger:
    """Parse ledger shards (path → text); other paths are ignored.

    A line whose event is not trusted (a forged id; with a `key`, a missing or bad signature) is
    kept aside with the corrupt lines.
    """
    return combine_shards((parse_shard(p, files[p], key) for p in files if is_shard(p)), key)


def parse_streamed(
    paths: Iterable[str],
    read: Callable[[Sequence[str]], Mapping[str, bytes]],
    key: bytes | None = None,
) -> ParsedLedger:
    """Parse shards read one at a time through `read` (in path order), so that only one shard's
    text is held at once: the same result as `parse_ledger` over all of them."""
    builder = LedgerBuilder(key)
    events: list[Event] = []
    for path in sorted(p for p in paths if is_shard(p)):
        events += builder.add_shard(parse_shard(path, decode_shard(read([path])[path]), key))
    return builder.result(tuple(events))


@dataclass(frozen=True)
class ShardParse:
    """One shard's numbered trusted events and refused lines, before duplicates across the
    ledger are found (shards can be parsed apart, e.g. in other processes, then combined)."""

    path: str
    blob_id: str
    events: list[tuple[int, Event]]
    problems: list[LedgerProblem]


def parse_shard(path: str, text: str, key: bytes | None = None) -> ShardParse:
    """Parse one shard's text."""
    events, problems = parse_lines(path, enumerate(text.split("\n"), start=1), key)
    return ShardParse(path, git_blob_id(encode_shard(text)), events, problems)


def combine_shards(parses: Iterable[ShardParse], key: bytes | None = None) -> ParsedLedger:
    """The ledger of shards parsed with `key` (in any order): the first occurrence of each id
    in shard order, then line order, is kept."""
    builder = LedgerBuilder(key)
    events: list[Event] = []
    for parse in sorted(parses, key=lambda parse: parse.path):
        events += builder.add_shard(parse)
    return builder.result(tuple(events))


def parse_lines(
    path: str, lines: Iterable[tuple[int, str]], key: bytes | None = None
) -> tuple[list[tuple[int, Event]], list[LedgerProblem]]:
    """Parse numbered lines of one shard into numbered trusted events and refused lines."""
    events: list[tuple[int, Event]] = []
    problems: list[LedgerProblem] = []
    for number, line in lines:
        if not line.strip():
            continue
        try:
            line.encode("utf-8")
            event = event_from_line(line)
        except UnicodeEncodeError:
            problems.append(LedgerProblem(path, number, "not valid UTF-8"))
            continue
        except LedgerError as exc:
            problems.append(LedgerProblem(path, number, str(exc)))
            continue
        problem = refusal(event, key)
        if problem is None:
            events.append((number, event))
        else:
            problems.append(LedgerProblem(path, number, problem))
    return events, problems


def decode_shard(data: bytes) -> str:
    """Shard bytes as text that encodes back to the same bytes."""
    return data.decode("utf-8", "surrogateescape")


def encode_shard(text: str) -> bytes:
    """The inverse of `decode_shard`."""
    return text.encode("utf-8", "surrogateescape")


def append_lines(text: str, events: Iterable[Event]) -> str:
    """Shard text with canonical lines for `events` appended (keeps existing lines as they are)."""
    new = "".join(event.to_line() + "\n" for event in events)
    if text and not text.endswith("\n"):
        text += "\n"
    return text + new


class LedgerBuilder:
    """Takes shards in order, keeping the first occurrence of each id: gives back each shard's
    kept events and collects the located problems, but holds no event itself (only the ids, and
    the job each was first seen in)."""

    def __init__(self, key: bytes | None) -> None:
        self.key = key
        self.events = 0
        self.corrupt: list[LedgerProblem] = []
        self.duplicates: list[LedgerProblem] = []
        self.misplaced: list[LedgerProblem] = []
        self.shards: dict[str, str] = {}
        self.seen: dict[str, tuple[str, int]] = {}
        self._jobs: dict[tuple[str, int], tuple[str, int]] = {}

    def add_shard(self, parse: ShardParse) -> list[Event]:
        """Take in one shard (after every earlier one): its events whose id is new."""
        self.shards[parse.path] = parse.blob_id
        self.corrupt.extend(parse.problems)
        return [event for number, event in parse.events if self._kept(parse.path, number, event)]

    def _kept(self, path: str, number: int, event: Event) -> bool:
        owner = self.seen.get(event.id)
        if owner is not None:
            self.duplicates.append(LedgerProblem(path, number, _duplicate(event, owner)))
            return False
        job = (event.repo, event.pr)
        self.seen[event.id] = self._jobs.setdefault(job, job)  # one tuple per job
        self.events += 1
        expected = shard_path(event.at)
        if shard_month(path) != _month(event):
            message = f"event {event.id[:12]} at {_month(event)} belongs in {expected}"
            self.misplaced.append(LedgerProblem(path, number, message))
        return True

    def result(self, events: tuple[Event, ...] = ()) -> ParsedLedger:
        """The ledger's problems and shards, with `events` (the kept ones, when the caller kept
        them; none otherwise: `self.events` counts them)."""
        return ParsedLedger(
            events,
            tuple(self.corrupt),
            tuple(self.duplicates),
            tuple(self.misplaced),
            dict(self.shards),
            key_id(self.key),
        )


def _duplicate(event: Event, owner: tuple[str, int]) -> str:
    if owner == (event.repo, event.pr):
        return f"duplicate id {event.id}"
    repo, pr = owner
    return (
        f"duplicate id {event.id}: reused across jobs "
        f"({event.repo}#{event.pr} here, first used by {repo}#{pr})"
    )


def _month(event: Event) -> str:
    return f"{event.at.year:04d}-{event.at.month:02d}"


def _natural_id(values: Mapping[str, Any]) -> str:
    try:
        return natural_key(
            str(values.get("kind")),
            str(values.get("repo")),
            int(values.get("pr") or 0),
            int(values.get("version") or 1),
            str(values["delivery"]),
        )
    except (TypeError, ValueError, OverflowError):
        return ""  # validation then names the bad field
