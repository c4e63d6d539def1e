"""Workflow commands and `$GITHUB_OUTPUT` blocks as text (pure: formats strings only).

The escaping follows `@actions/core`: data escapes `%`, CR and LF; properties also `:` and `,`.
"""

from __future__ import annotations

from collections.abc import Mapping

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
