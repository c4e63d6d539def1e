"""What each server accepted on the structured-output ladder, remembered on disk (shell: files)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

from rubricate.judge.calls import Negotiated


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
