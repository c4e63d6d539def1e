"""The judgment cache: one JSON file per key in a directory (shell: reads and writes files).

`cache_key` hashes everything a judgment depends on (DESIGN.md §7); a missing, unreadable or
corrupt entry is a miss, and a failed write is reported, never fatal.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rubricate.evidence.snapshot import Snapshot
from rubricate.judge.detector import DETECTOR_VERSION
from rubricate.judge.prompt_text import PROMPT_VERSION
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
