"""A text file or standard input a user names on the command line, with one clear
`ConfigError` per way it can fail (shell: reads).

Relative paths a user typed start at the current directory.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import BinaryIO

from rubricate.errors import ConfigError, read_problem


def read_text(path: str, what: str) -> str:
    """The UTF-8 text of `path`; `what` says what the file is for (`--spec`, `the config`)."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {what} {path}: {read_problem(exc)}") from None


def read_lines(name: str, what: str) -> Iterator[str]:
    """The lines of file `name` (`-`: standard input) as UTF-8 text, read as they are wanted;
    each ends at "\n" only, which it loses. Errors are those of `read_text` and `read_stdin`,
    byte positions counted from the start of the input."""
    where = "from standard input" if name == "-" else name
    offset = 0
    try:
        with _binary(name, what) as stream:
            for raw in stream:
                text = raw.decode("utf-8")
                offset += len(raw)
                yield text[:-1] if text.endswith("\n") else text
    except UnicodeDecodeError as exc:
        exc.start += offset
        raise ConfigError(f"cannot read {what} {where}: {read_problem(exc)}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {what} {where}: {read_problem(exc)}") from None


def _binary(name: str, what: str) -> AbstractContextManager[BinaryIO]:
    """The file opened for reading, or standard input (left open when done)."""
    if name != "-":
        return Path(name).open("rb")
    stream = sys.stdin
    if stream is None:
        raise ConfigError(f"cannot read {what} from standard input: it is closed")
    buffer = stream.buffer if hasattr(stream, "buffer") else io.BytesIO(stream.read().encode())
    return nullcontext(buffer)


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
