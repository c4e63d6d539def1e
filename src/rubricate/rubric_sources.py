"""Where rubric text comes from on this machine, for the Action and the command line alike
(shell: reads files and the environment): the package's own data (the built-in rubrics, the
example workflows), a repository's files (never outside it), and the environment values the
config lets a rubric name.

The core loads rubric text and asks for every other file through a `read(path)` function;
`local_reader` is the one for files on disk.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable
from importlib import resources
from pathlib import Path

ReadFile = Callable[[str], str]
RUBRIC_SUFFIX = ".yml"


def local_reader(root: Path, base: Path | None = None) -> ReadFile:
    """Read UTF-8 files under `root`; anything that resolves outside it is a PermissionError.

    Relative paths are taken from `base` (default: `root`).
    """
    top = root.resolve()
    start = top if base is None else base.resolve()

    def read(path: str) -> str:
        candidate = Path(path)
        full = (candidate if candidate.is_absolute() else start / candidate).resolve()
        if full != top and top not in full.parents:
            raise PermissionError(f"{path} is outside the repository {top}")
        return full.read_text(encoding="utf-8")

    return read


@functools.lru_cache(maxsize=1)
def builtin_rubrics() -> dict[str, str]:
    """The built-in rubrics: each one's name and YAML text."""
    directory = data_dir("rubrics", "rubrics")
    if directory is None:
        return {}
    paths = sorted(directory.glob(f"*{RUBRIC_SUFFIX}"))
    return {path.stem: path.read_text(encoding="utf-8") for path in paths}


def data_dir(packaged: str, checkout: str) -> Path | None:
    """A directory shipped in the wheel at `rubricate/_data/PACKAGED`, else `<repo>/CHECKOUT`."""
    installed = resources.files("rubricate") / "_data" / packaged
    if isinstance(installed, Path) and installed.is_dir():
        return installed
    source = Path(__file__).resolve().parents[2] / checkout
    return source if source.is_dir() else None


def allowed_env(names: Iterable[str]) -> dict[str, str | None]:
    """The environment's values of the names config `agentv.env` lists, and of no others."""
    return {name: os.environ.get(name) for name in names}
