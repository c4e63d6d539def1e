"""The built-in rubrics, and finding a rubric by name or path (shell: reads the package data).

Built-ins ship in the wheel at `rubricate/_data/rubrics/` and live at `<repo>/rubrics/` in a
source checkout; `cli/repo_reader.builtin_rubrics` reads them. `resolve_rubric` hands them to
the core (`loader.find_rubric`), which reads every other file through the caller's
`read_file` (the bot reads the base ref; the command line reads the working tree).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rubricate.cli.repo_reader import ReadFile, builtin_rubrics
from rubricate.errors import ConfigError
from rubricate.rubric.loader import find_rubric
from rubricate.yamlsource import did_you_mean

if TYPE_CHECKING:
    from rubricate.rubric.model import Rubric

DEFAULT_RUBRIC = "agora-v3"


def builtin_names() -> tuple[str, ...]:
    """The names of the built-in rubrics, sorted."""
    return tuple(sorted(builtin_rubrics()))


def builtin_text(name: str) -> str:
    """The YAML text of a built-in rubric."""
    texts = builtin_rubrics()
    if name not in texts:
        names = builtin_names()
        raise ConfigError(
            f"rubric {name!r} not found: no such file, and not a built-in"
            f"{did_you_mean(name, names)} ({', '.join(names)})"
        )
    return texts[name]


def resolve_rubric(ref: str, read_file: ReadFile | None = None) -> Rubric:
    """The rubric named by a built-in name, a path, or `PATH#CASE_ID`."""
    return find_rubric(ref, read_file, builtin_rubrics())
