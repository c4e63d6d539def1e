"""Write files inside a repository without following a symbolic link anywhere (shell).

A repository can commit a symlink where `rubricate init` writes (`.github`, `.github/workflows`
or the file itself) that points out of the repository or elsewhere in it. Every component of
the path below the root is checked with `lstat` before anything is written, folders are made
one at a time, and the file is opened with `O_NOFOLLOW`, so a symlink is refused, never
followed: dangling or not, with `--force` or not.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from rubricate.errors import ConfigError


def symlink_on_the_way(root: Path, relative: str) -> str | None:
    """The first component of `relative` under `root` that is a symlink (or None)."""
    current = root
    for part in Path(relative).parts:
        current = current / part
        try:
            info = current.lstat()
        except FileNotFoundError:
            return None
        if stat.S_ISLNK(info.st_mode):
            return current.relative_to(root).as_posix()
    return None


def refuse_symlinks(root: Path, paths: list[str]) -> None:
    """`ConfigError` naming each path that a symlink would redirect."""
    found = [(path, symlink_on_the_way(root, path)) for path in paths]
    bad = [(path, link) for path, link in found if link is not None]
    if bad:
        lines = [
            f"refusing to write {path}: {link} is a symbolic link "
            "(rubricate never writes through one)"
            for path, link in bad
        ]
        raise ConfigError("; ".join(lines))


def exists(root: Path, relative: str) -> bool:
    """Whether anything, a dangling symlink included, is at the path (not following links)."""
    return os.path.lexists(root / relative)


def write_inside(root: Path, relative: str, text: str) -> Path:
    """Write `text` at `root/relative`, making folders; `ConfigError` on any symlink."""
    refuse_symlinks(root, [relative])
    parts = Path(relative).parts
    current = root
    for part in parts[:-1]:
        current = current / part
        try:
            current.mkdir()
        except FileExistsError:
            if not stat.S_ISDIR(current.lstat().st_mode):
                raise ConfigError(
                    f"refusing to write {relative}: {current} is not a folder"
                ) from None
    target = root / relative
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(target, flags, 0o644)
    except OSError as exc:
        raise ConfigError(f"cannot write {target}: {exc.strerror}") from None
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
    return target
