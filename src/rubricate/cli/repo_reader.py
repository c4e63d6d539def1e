"""Read repository files for the rubric loader, never outside the repository, and the package's
own data: the built-in rubrics; and a text file or standard input a user named, with one
clear `ConfigError` per way it can fail (shell: reads).

The core loads rubric text and asks for every other file through a `read(path)` function;
this is the one the command line passes. Relative paths are taken from the repository root;
a path that resolves outside it (through `..` or a symbolic link) is refused. Relative paths
start at the repository root, or at the current directory for paths a user typed.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Iterable
from importlib import resources
from pathlib import Path

from rubricate.errors import ConfigError, read_problem

ReadFile = Callable[[str], str]
RUBRIC_SUFFIX = ".yml"


def repository_root(start: Path) -> Path:
    """The nearest directory at or above `start` that holds `.git`, else `start` itself."""
    here = start.resolve()
    for directory in (here, *here.parents):
        if (directory / ".git").exists():
            return directory
    return here


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


def reader_for(path: str) -> ReadFile:
    """A reader for the repository that holds `path`; relative paths start at the cwd."""
    return local_reader(repository_root(Path(path).parent), Path.cwd())


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
    source = Path(__file__).resolve().parents[3] / checkout
    return source if source.is_dir() else None


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


def allowed_env(names: Iterable[str]) -> dict[str, str | None]:
    """The environment's values of the names config `agentv.env` lists, and of no others."""
    return {name: os.environ.get(name) for name in names}
