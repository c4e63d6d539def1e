"""The Actions runtime: log lines, groups, annotations, outputs and the step summary (shell).

Workflow commands and `$GITHUB_OUTPUT` blocks are formatted as text by pure functions; the
escaping follows `@actions/core`: data escapes `%`, CR and LF; properties also `:` and `,`.

Every line written goes through `redact`, so a token never reaches the log even where the
runner's own masking does not apply (local runs, a secret in a URL).
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from rubricate.errors import ConfigError
from rubricate.redaction import is_secret, redact

AnnotationLevel = str


def escape_data(text: str) -> str:
    """Escape a command's message so it stays on one line."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a command property value (`file=`, `title=` ...)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: str = "", properties: Mapping[str, object] | None = None) -> str:
    """`::name prop=value,...::message` with everything escaped; empty properties are left out."""
    props = ",".join(
        f"{key}={escape_property(str(value))}"
        for key, value in (properties or {}).items()
        if value is not None and value != ""
    )
    head = f"{name} {props}" if props else name
    return f"::{head}::{escape_data(message)}"


def group(title: str) -> str:
    """Open a collapsible log group."""
    return command("group", title)


def endgroup() -> str:
    """Close the current log group."""
    return command("endgroup")


def add_mask(secret: str) -> str:
    """Ask the runner to mask a secret in every later log line."""
    return command("add-mask", secret)


def annotation(
    level: AnnotationLevel,
    message: str,
    *,
    path: str | None = None,
    line: int | None = None,
    title: str | None = None,
) -> str:
    """`::error file=..,line=..::message` (level: notice, warning or error)."""
    if level not in ("notice", "warning", "error"):
        raise ValueError(f"unknown annotation level {level!r}")
    return command(level, message, {"file": path, "line": line if path else None, "title": title})


def output_block(name: str, value: str, delimiter: str) -> str:
    """A `$GITHUB_OUTPUT` heredoc entry, safe for multi-line values."""
    if not name or "\n" in name or "=" in name or "<<" in name:
        raise ValueError(f"invalid output name {name!r}")
    if delimiter in value or delimiter in name:
        raise ValueError("the delimiter occurs in the output; choose another")
    return f"{name}<<{delimiter}\n{value}\n{delimiter}\n"


def truncate_utf8(text: str, limit: int, note: str) -> str:
    """`text` cut so that it plus `note` fits in `limit` UTF-8 bytes; unchanged when it fits."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    room = max(0, limit - len(note.encode("utf-8")))
    return data[:room].decode("utf-8", "ignore") + note


SUMMARY_LIMIT = 1024 * 1024
_SUMMARY_NOTE = "\n\n_(summary cut: GitHub keeps at most 1 MiB per step)_\n"


class ActionsRuntime:
    """Writes workflow commands to a log stream, and the output and step-summary files."""

    def __init__(
        self,
        *,
        stream: TextIO | None = None,
        output_path: str | None = None,
        summary_path: str | None = None,
        secrets: Iterable[str] = (),
        in_actions: bool | None = None,
    ) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._in_actions = (
            os.environ.get("GITHUB_ACTIONS") == "true" if in_actions is None else in_actions
        )
        self._output_path = output_path
        self._summary_path = summary_path
        self._secrets: list[str] = []
        self.outputs: dict[str, str] = {}
        for secret in secrets:
            self.mask(secret)

    def mask(self, secret: str) -> None:
        """Register a secret: this runtime redacts it, and inside Actions the runner masks it
        too (`::add-mask::` is a workflow command: outside Actions it would print the secret).
        A short or placeholder value is not a secret and is not registered."""
        if secret and is_secret(secret) and secret not in self._secrets:
            self._secrets.append(secret)
            if self._in_actions:
                self._write(add_mask(secret), redacted=False)

    def redact(self, text: str) -> str:
        """The text with every registered secret replaced by `***`."""
        return redact(text, self._secrets)

    def log(self, message: str) -> None:
        """Plain log lines; a line that would read as a workflow command is defused."""
        self._write("\n".join(_defuse(line) for line in message.splitlines() or [""]))

    def annotate(
        self,
        level: str,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        title: str | None = None,
    ) -> None:
        """An error, warning or notice annotation, located when a path is given."""
        self._write(annotation(level, self.redact(message), path=path, line=line, title=title))

    @contextmanager
    def group(self, title: str) -> Iterator[None]:
        """A collapsible log group around a block of work."""
        self._write(group(title))
        try:
            yield
        finally:
            self._write(endgroup())

    def set_outputs(self, outputs: Mapping[str, str]) -> None:
        """Write job outputs to `$GITHUB_OUTPUT` (multi-line safe); log them when it is unset."""
        for name, value in outputs.items():
            self.outputs[name] = self.redact(value)
        if not self._output_path:
            for name, value in outputs.items():
                self.log(f"output {name}={self.redact(value)}")
            return
        text = "".join(output_block(n, self.redact(v), _delimiter(v)) for n, v in outputs.items())
        _append(self._output_path, text, "GITHUB_OUTPUT")

    def add_summary(self, markdown: str) -> None:
        """Append markdown to `$GITHUB_STEP_SUMMARY`, cut to GitHub's 1 MiB limit."""
        if not self._summary_path or not markdown:
            return
        current = _size(self._summary_path)
        text = truncate_utf8(self.redact(markdown), max(0, SUMMARY_LIMIT - current), _SUMMARY_NOTE)
        _append(
            self._summary_path, text if text.endswith("\n") else text + "\n", "GITHUB_STEP_SUMMARY"
        )

    def _write(self, line: str, *, redacted: bool = True) -> None:
        self._stream.write((self.redact(line) if redacted else line) + "\n")
        self._stream.flush()


def _defuse(line: str) -> str:
    stripped = line.lstrip()
    return line.replace("::", ": :", 1) if stripped.startswith("::") else line


def _delimiter(value: str) -> str:
    while True:
        candidate = f"ghadelimiter_{uuid.uuid4()}"
        if candidate not in value:
            return candidate


def _append(path: str, text: str, variable: str) -> None:
    try:
        with Path(path).open("a", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise ConfigError(f"cannot write ${variable} ({path}): {exc.strerror or exc}") from None


def _size(path: str) -> int:
    try:
        return Path(path).stat().st_size
    except OSError:
        return 0
