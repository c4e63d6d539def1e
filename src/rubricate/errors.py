"""Typed errors shared by every part of rubricate (pure: no I/O)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Diagnostic:
    """One located message about a source file: `path:line:col: message`."""

    path: str
    line: int
    col: int
    message: str
    severity: str = "error"

    def __str__(self) -> str:
        prefix = "" if self.severity == "error" else f"{self.severity}: "
        return f"{self.path}:{self.line}:{self.col}: {prefix}{self.message}"


class RubricateError(Exception):
    """Base of every error that rubricate reports to a user without a traceback."""

    exit_code = 2


class SourceError(RubricateError):
    """A rubric or config file failed validation; carries every located diagnostic."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = diagnostics
        super().__init__("\n".join(str(d) for d in diagnostics))


class ScoreError(RubricateError):
    """A score that names an unknown criterion or lies outside the allowed range."""


class ConfigError(RubricateError):
    """A configuration that cannot be used (missing file, bad value, bad schema)."""


def read_problem(exc: OSError | UnicodeDecodeError) -> str:
    """A short reason for a failed read: `no such file`, `is a directory`, `not UTF-8 text`."""
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text (byte {exc.start} cannot be decoded)"
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if isinstance(exc, IsADirectoryError):
        return "is a directory, not a file"
    if isinstance(exc, NotADirectoryError):
        return "a part of the path is not a directory"
    if isinstance(exc, PermissionError):
        return "permission denied"
    return str(exc.strerror or exc)
