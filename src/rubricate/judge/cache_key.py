"""The judge cache key: a content hash of everything the judgment depends on (pure: no I/O).

The key covers the head tree (and the base tree, since the diff depends on both), the request
text (spec, PR title and body), the rubric's id, version and content, the model, the token
budget and `PROMPT_VERSION`. Without tree ids, the changed files' patches stand in for them.
"""

from __future__ import annotations

import hashlib
import json

from rubricate.evidence.snapshot import Snapshot
from rubricate.judge.prompt_text import PROMPT_VERSION
from rubricate.rubric.model import Rubric


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
