"""The judge cache: one JSON file per key in a directory (shell: reads and writes files).

The key (`cache_key`) is a content hash of everything the judgment depends on: the head tree
(and the base tree, since the diff depends on both), the request text (spec, PR title and
body), the rubric's id, version and content, the model, the token budget, `PROMPT_VERSION`
and the injection detector's `DETECTOR_VERSION`. Without tree ids, the changed files' patches
stand in for them.

The directory is configurable (`cache_dir`, else `$RUBRICATE_JUDGE_CACHE`, else
`.rubricate-cache/judge` under the current directory), so the action can keep it with
`actions/cache`. A missing, unreadable or corrupt entry is a miss; a failed write is reported
to the caller and never fatal.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rubricate.judge.calls import Negotiated
from rubricate.judge.detector import DETECTOR_VERSION
from rubricate.judge.prompt_text import PROMPT_VERSION

if TYPE_CHECKING:
    from rubricate.evidence.snapshot import Snapshot
    from rubricate.rubric.model import Rubric

ENV_VAR = "RUBRICATE_JUDGE_CACHE"
DEFAULT_DIR = Path(".rubricate-cache") / "judge"


def resolve_cache_dir(cache_dir: str | None, env: Mapping[str, str]) -> Path:
    """The cache directory: the argument, else the environment, else the default."""
    chosen = cache_dir or env.get(ENV_VAR) or ""
    return Path(chosen) if chosen else Path.cwd() / DEFAULT_DIR


class JudgeCache:
    """A directory of cached judge runs, keyed by content hash."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def path(self, key: str) -> Path:
        """Where the entry for `key` lives."""
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored entry, or None when absent or unreadable."""
        try:
            data = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return None
        return data if isinstance(data, dict) else None

    def put(self, key: str, data: dict[str, Any]) -> str | None:
        """Store an entry atomically; the reason on failure, else None."""
        target = self.path(key)
        temporary: Path | None = None
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(
                "w", encoding="utf-8", dir=target.parent, suffix=".tmp", delete=False
            ) as handle:
                temporary = Path(handle.name)
                json.dump(data, handle, sort_keys=True)
            os.replace(temporary, target)
        except (OSError, TypeError, ValueError) as exc:
            if temporary is not None:
                temporary.unlink(missing_ok=True)
            reason = getattr(exc, "strerror", None) or exc
            return f"could not write the judge cache at {self.directory}: {reason}"
        return None


class ServerModes:
    """What each server (base URL + model) accepted, one small JSON file per server in the judge
    cache directory, so the next run starts at the right rung of the structured-output ladder.
    The file is named by a hash: a base URL with credentials in it is never written out."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory / "servers"

    def _path(self, base_url: str, model: str) -> Path:
        digest = hashlib.sha256(f"{base_url}\n{model}".encode()).hexdigest()[:32]
        return self.directory / f"{digest}.json"

    def get(self, base_url: str, model: str) -> Negotiated | None:
        """What the server accepted last time, or None."""
        try:
            data = json.loads(self._path(base_url, model).read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return None
        return Negotiated.from_dict(data)

    def put(self, base_url: str, model: str, negotiated: Negotiated) -> None:
        """Remember what the server accepted; a failed write is ignored (it is only a hint)."""
        with contextlib.suppress(OSError):
            self.directory.mkdir(parents=True, exist_ok=True)
            target = self._path(base_url, model)
            temporary = target.with_suffix(".tmp")
            temporary.write_text(json.dumps(negotiated.as_dict()), encoding="utf-8")
            os.replace(temporary, target)


def cache_key(snapshot: Snapshot, rubric: Rubric, model: str, max_input_tokens: int) -> str:
    """A sha256 hex digest naming one judgment."""
    parts = {
        "head_tree": snapshot.head_tree or _changes_digest(snapshot),
        "base_tree": snapshot.base_tree,
        "spec": snapshot.spec,
        "title": snapshot.title,
        "body": snapshot.body,
        "rubric": [rubric.id, rubric.version, rubric.model_dump_json()],
        "model": model,
        "max_input_tokens": max_input_tokens,
        "prompt_version": PROMPT_VERSION,
        "detector_version": DETECTOR_VERSION,
    }
    encoded = json.dumps(parts, sort_keys=True, ensure_ascii=True).encode()
    return hashlib.sha256(encoded).hexdigest()


def _changes_digest(snapshot: Snapshot) -> str:
    digest = hashlib.sha256()
    for change in snapshot.changes:
        digest.update(f"{change.path}\0{change.status}\0".encode("utf-8", "replace"))
        digest.update(change.patch.encode("utf-8", "replace"))
        digest.update(change.content or b"")
        digest.update(b"\0")
    return "changes:" + digest.hexdigest()
