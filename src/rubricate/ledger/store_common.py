"""What both stores share: the append result, extra files and job-file reading (pure).

An extra file (e.g. a PR's view state under `views/`) is given either as its new content, or as
a function of its content at the tip (None when absent) that returns the new content (None to
leave it as it is). A function is called again on every attempt, after a rejected push too,
so it always builds on the newest tip and never writes a stale state over a newer one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from pydantic import ValidationError

from rubricate.ledger.codec import LedgerError, is_shard
from rubricate.ledger.derive import is_derived
from rubricate.ledger.event import Event
from rubricate.ledger.trust import trusted

Extra: TypeAlias = bytes | Callable[[bytes | None], bytes | None]
"""An extra file's new content, or a function from its content at the tip to the new content."""
_SAFE_PATH = re.compile(r"^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$")


@dataclass(frozen=True)
class AppendResult:
    """How an append went: events added, events already present, the commit, the attempts."""

    added: int
    present: int
    commit: str | None
    attempts: int


def check_extras(extras: Mapping[str, Extra]) -> dict[str, Extra]:
    """Extra (non-derived, non-ledger) files, validated: e.g. view state under `views/`."""
    for path in extras:
        if not _SAFE_PATH.match(path) or ".." in path.split("/"):
            raise LedgerError(f"{path!r} is not a safe relative path for an extra file")
        if is_shard(path) or path.startswith("ledger/") or is_derived(path):
            raise LedgerError(f"{path!r} belongs to the ledger or its derived files")
    return dict(extras)


def resolve_extras(extras: Mapping[str, Extra], current: Mapping[str, bytes]) -> dict[str, bytes]:
    """The content to write for each extra given the tip's files (extras left unchanged omitted)."""
    resolved: dict[str, bytes] = {}
    for path, extra in extras.items():
        data = extra if isinstance(extra, bytes) else extra(current.get(path))
        if data is not None:
            resolved[path] = bytes(data)
    return resolved


def callable_paths(extras: Mapping[str, Extra]) -> list[str]:
    """The extras whose content depends on the tip (they need it read)."""
    return [path for path, extra in extras.items() if not isinstance(extra, bytes)]


def commit_message(added: int, extras: Sequence[str], rebuilt: bool = False) -> str:
    """The commit message of an append (or of a rebuild of the derived files)."""
    parts = ["Rebuild the derived files"] if rebuilt else []
    if added:
        parts.append(f"Append {added} ledger event{'s' if added != 1 else ''}")
    if extras:
        parts.append("Update " + ", ".join(extras))
    return "; ".join(parts) + "\n"


def job_file_events(
    files: Mapping[str, bytes], repo: str, pr: int, key: bytes | None = None
) -> tuple[Event, ...]:
    """The trusted events of a job file among `files` (the first that names this job).

    A job file is derived, and anyone who can push to the data branch can edit it: an event
    whose id is forged (or, with a ledger `key`, that is not signed with it) is left out.
    """
    for path in sorted(files):
        try:
            body = json.loads(files[path])
            if body.get("repo") != repo or body.get("pr") != pr:
                continue
            return trusted((Event.model_validate(raw) for raw in body["events"]), key)
        except (ValueError, KeyError, TypeError, AttributeError, ValidationError) as exc:
            raise LedgerError(f"{path}: not a valid job file ({exc.__class__.__name__})") from None
    return ()
