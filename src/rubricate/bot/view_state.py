"""What the bot last wrote to a PR's views, kept to save REST calls (pure: data).

The view state is kept per PR as `views/<owner>/<repo>/<pr>.json` on the data branch: the
sticky comment's id and digest, each head SHA's check run and status, the PR's base and head as
last seen in a pull_request event, and the comments and reviews already answered
(`comment:<id>`, `review:<id>`; the last 500), so a re-run never answers one twice. The views
stay pure functions of the ledger. Writes merge the answered ids found at the tip
(`ViewState.merged_with`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from rubricate.gitnames import ref_error, sha_error
from rubricate.ledger.trust import keyed_digest, same_digest

KEEP_SHAS = 20
KEEP_ANSWERED = 500


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore")


class StickyState(_Model):
    """The sticky comment: its id and a digest of the body last written."""

    id: int
    digest: str = ""


class CheckState(_Model):
    """A check run on one head SHA: its id, and digests of its output and its annotations;
    `unsent` counts the batches of those annotations not yet sent (a run stopped between its
    batches, by a rate limit or a failure, goes on from there instead of sending any twice)."""

    id: int
    digest: str = ""
    annotations: str = ""
    unsent: int | None = None


class StatusView(_Model):
    """The commit status last set on one SHA."""

    state: str
    description: str


class PullState(_Model):
    """The PR's base and head as of the last pull_request event handled."""

    base_sha: str
    base_ref: str = ""
    head_sha: str

    @field_validator("base_sha", "head_sha")
    @classmethod
    def _full_sha(cls, value: str) -> str:
        problem = sha_error(value, "view state: pull SHA")
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("base_ref")
    @classmethod
    def _safe_ref(cls, value: str) -> str:
        problem = ref_error(value, "view state: pull base_ref") if value else None
        if problem:
            raise ValueError(problem)
        return value


class ViewState(_Model):
    """Everything known about one PR's views."""

    pr: int
    sticky: StickyState | None = None
    checks: dict[str, CheckState] = {}
    statuses: dict[str, StatusView] = {}
    pull: PullState | None = None
    answered: list[str] = []

    def trimmed(self) -> ViewState:
        """A copy keeping only the most recent SHAs' entries and answered ids."""
        return self.model_copy(
            update={
                "checks": _last(self.checks),
                "statuses": _last(self.statuses),
                "answered": self.answered[-KEEP_ANSWERED:],
            }
        )

    def with_answered(self, prefix: str) -> ViewState:
        """A copy that also names this comment or review as answered."""
        if prefix in self.answered:
            return self
        return self.model_copy(update={"answered": [*self.answered, prefix]})

    def writer(self, key: bytes | None = None) -> Callable[[bytes | None], bytes | None]:
        """What to write over the tip's state: this one, keeping the ids another run answered
        meanwhile (None when the tip already holds it); signed with the ledger `key`, if any."""

        def write(tip: bytes | None) -> bytes | None:
            data = encode_views(self.merged_with(decode_views(tip, self.pr, key)), key)
            return None if data == tip else data

        return write

    def merged_with(self, tip: ViewState) -> ViewState:
        """This state, keeping the ids another run answered meanwhile (found at the tip)."""
        ours = set(self.answered)
        theirs = [prefix for prefix in tip.answered if prefix not in ours]
        return self.model_copy(update={"answered": [*theirs, *self.answered]})


def _last(mapping: dict[str, Any]) -> dict[str, Any]:
    return dict(list(mapping.items())[-KEEP_SHAS:])


def view_path(repo: str, pr: int) -> str:
    """The data-branch path of a PR's view state."""
    safe = "/".join(re.sub(r"[^A-Za-z0-9._-]", "_", part) or "_" for part in repo.split("/"))
    return f"views/{safe}/{pr}.json"


def decode_views(data: bytes | None, pr: int, key: bytes | None = None) -> ViewState:
    """The stored state, or an empty one when missing or unreadable (it is only a cache).

    A `pull` entry with a SHA or ref that git could mistake for an option is dropped, and
    the rest of the state kept. With a ledger `key`, a state not signed with it is empty: the
    view state decides which statuses are already set and which comments were answered, so an
    edit by anyone who can push to the data branch could otherwise keep a green gate up or
    have a `/revise` skipped.
    """
    if not data or (key is not None and not _signed_by(data, key)):
        return ViewState(pr=pr)
    try:
        state = ViewState.model_validate_json(data)
    except ValidationError:
        state = _without_pull(data, pr)
    return state if state.pr == pr else ViewState(pr=pr)


def _without_pull(data: bytes, pr: int) -> ViewState:
    try:
        raw = json.loads(data)
        if isinstance(raw, dict):
            raw.pop("pull", None)
        return ViewState.model_validate(raw)
    except (ValueError, ValidationError):
        return ViewState(pr=pr)


def encode_views(state: ViewState, key: bytes | None = None) -> bytes:
    """Canonical JSON bytes, so an unchanged state is byte-identical (with a ledger `key`, with
    its signature in `sig`)."""
    data = state.trimmed().model_dump(mode="json", exclude_none=True)
    if key is not None:
        data["sig"] = keyed_digest(key, _canonical(data), _VIEWS_LABEL)
    return _canonical(data)


_VIEWS_LABEL = b"rubricate view state\n"


def _canonical(data: dict[str, Any]) -> bytes:
    return (json.dumps(data, sort_keys=True, indent=2) + "\n").encode()


def _signed_by(data: bytes, key: bytes) -> bool:
    """Whether stored view-state bytes carry a valid signature under `key`."""
    try:
        raw = json.loads(data)
    except ValueError:
        return False
    sig = raw.pop("sig", None) if isinstance(raw, dict) else None
    if not isinstance(sig, str):
        return False
    return same_digest(sig, keyed_digest(key, _canonical(raw), _VIEWS_LABEL))


def digest(value: Any) -> str:
    """A short, stable digest of text or JSON-ready data."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]
