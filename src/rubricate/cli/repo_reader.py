"""The repository that holds a file a user names on the command line, read through
`rubricate.rubric_sources.local_reader`, never outside it (shell: reads).

Relative paths a user typed start at the current directory.
"""

from __future__ import annotations

from pathlib import Path

from rubricate.rubric_sources import ReadFile, local_reader


def repository_root(start: Path) -> Path:
    """The nearest directory at or above `start` that holds `.git`, else `start` itself."""
    here = start.resolve()
    for directory in (here, *here.parents):
        if (directory / ".git").exists():
            return directory
    return here


def reader_for(path: str) -> ReadFile:
    """A reader for the repository that holds `path`; relative paths start at the cwd."""
    return local_reader(repository_root(Path(path).parent), Path.cwd())
