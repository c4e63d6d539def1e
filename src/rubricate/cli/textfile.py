"""Read a text file a user named, with one clear message per way it can fail (shell: reads).

Every failure is a `ConfigError` (exit 2) that names the file, what it is for, and why:
`cannot read --spec notes.md: no such file`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from rubricate.errors import ConfigError, read_problem


def read_text(path: str, what: str) -> str:
    """The UTF-8 text of `path`; `what` says what the file is for (`--spec`, `the config`)."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {what} {path}: {read_problem(exc)}") from None


def read_stdin(what: str) -> str:
    """Standard input as UTF-8 text; a closed stdin or undecodable bytes are clear errors."""
    stream = sys.stdin
    if stream is None:
        raise ConfigError(f"cannot read {what} from standard input: it is closed")
    try:
        data = stream.buffer.read() if hasattr(stream, "buffer") else stream.read().encode()
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {what} from standard input: {read_problem(exc)}") from None
