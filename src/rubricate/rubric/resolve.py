"""Find a rubric by built-in name or path, or `PATH#CASE` (pure: reads through `read_file`).

Built-ins ship in the wheel at `rubricate/_data/rubrics/` and live at `<repo>/rubrics/` in a
source checkout. Every other file is read with the caller's `read_file` (the bot reads the base
ref; the command line reads the working tree), and so are the files a rubric file refers to.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from rubricate.errors import ConfigError
from rubricate.rubric.loader import LoadedFile, load_rubrics
from rubricate.rubric.model import Rubric
from rubricate.yamlsource import did_you_mean

DEFAULT_RUBRIC = "agora-v3"
SUFFIX = ".yml"
ReadFile = Callable[[str], str]


def builtin_names() -> tuple[str, ...]:
    """The names of the built-in rubrics, sorted."""
    return tuple(sorted(_builtin_files()))


def builtin_text(name: str) -> str:
    """The YAML text of a built-in rubric."""
    files = _builtin_files()
    if name not in files:
        raise ConfigError(_not_found(name))
    return files[name].read_text(encoding="utf-8")


def resolve_rubric(ref: str, read_file: ReadFile | None = None) -> Rubric:
    """The rubric named by a built-in name, a path, or `PATH#CASE_ID`."""
    path, _, case = ref.partition("#")
    path = path.strip()
    if not path:
        raise ConfigError(f"no rubric given in {ref!r}")
    if path in _builtin_files():
        loaded = _load_builtin(path)
    else:
        loaded = load_rubrics(_read(path, read_file), path, read_file)
    return select_case(loaded, path, case.strip() or None)


def load_file(path: str, read_file: ReadFile | None = None) -> LoadedFile:
    """Load every rubric of a file, read like `resolve_rubric` reads it."""
    return load_rubrics(_read(path, read_file), path, read_file)


def select_case(loaded: LoadedFile, path: str, case: str | None) -> Rubric:
    """The rubric of one case; a file with several cases needs `#CASE`."""
    cases = loaded.cases
    if case is None:
        if len(loaded.rubrics) == 1:
            return loaded.rubrics[0]
        raise ConfigError(
            f"{path} has {len(cases)} cases; choose one as {path}#CASE: {', '.join(cases)}"
        )
    for rubric in loaded.rubrics:
        if rubric.case == case:
            return rubric
    if not cases:
        raise ConfigError(f"{path} has no cases, so it cannot be addressed as {path}#{case}")
    raise ConfigError(
        f"{path} has no case {case!r}{did_you_mean(case, cases)}; cases: {', '.join(cases)}"
    )


def _read(path: str, read_file: ReadFile | None) -> str:
    if read_file is None:
        raise ConfigError(_not_found(path))
    try:
        return read_file(path)
    except FileNotFoundError:
        raise ConfigError(_not_found(path)) from None
    except IsADirectoryError:
        raise ConfigError(f"rubric {path!r} is a directory, not a file") from None
    except UnicodeDecodeError:
        raise ConfigError(f"rubric {path!r} is not UTF-8 text") from None
    except PermissionError:
        raise ConfigError(f"rubric {path!r} is outside the repository or not readable") from None
    except OSError as exc:
        raise ConfigError(f"cannot read rubric {path!r}: {exc.strerror or exc}") from None


def _not_found(name: str) -> str:
    names = builtin_names()
    hint = did_you_mean(name, names)
    return f"rubric {name!r} not found: no such file, and not a built-in{hint} ({', '.join(names)})"


@functools.cache
def _load_builtin(name: str) -> LoadedFile:
    return load_rubrics(builtin_text(name), f"{name}{SUFFIX}")


@functools.lru_cache(maxsize=1)
def _builtin_files() -> dict[str, Path]:
    directory = _builtin_dir()
    if directory is None:
        return {}
    return {path.stem: path for path in sorted(directory.glob(f"*{SUFFIX}"))}


def _builtin_dir() -> Path | None:
    return data_dir("rubrics", "rubrics")


def data_dir(packaged: str, checkout: str) -> Path | None:
    """A directory shipped in the wheel at `rubricate/_data/PACKAGED`, else `<repo>/CHECKOUT`."""
    installed = resources.files("rubricate") / "_data" / packaged
    if isinstance(installed, Path) and installed.is_dir():
        return installed
    source = Path(__file__).resolve().parents[3] / checkout
    return source if source.is_dir() else None
