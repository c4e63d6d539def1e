"""`rubricate validate PATH...`: check rubric and config files (shell: reads the files).

Prints `ok PATH (DIALECT, N criteria)` for each valid rubric (one line per case of a
multi-case file), `ok PATH (config)` for a valid config, and `PATH:LINE:COL: message` for
each problem, all on stdout. Exit code: 0 all valid, 2 any invalid (an input error, as for
every command) or a usage error. A file over `--max-bytes` (1 MiB) is refused before it is read.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

EXIT_OK = 0
EXIT_INVALID = 2


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `rubricate validate`."""
    parser = subparsers.add_parser(
        "validate",
        help="check rubric and config files",
        description=(
            "Check rubric files (any dialect) and config files (.github/rubricate.yml). "
            "Exit code 0 when all are valid, 2 when any is invalid or on a usage error."
        ),
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="rubric or config files")
    parser.add_argument("--strict", action="store_true", help="treat warnings as errors")
    parser.add_argument(
        "--max-bytes",
        type=int,
        default=None,
        metavar="N",
        help="refuse files over N bytes before parsing (default: 1 MiB)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Validate every file; report each one, and fail when any is invalid."""
    all_valid = True
    for path in args.paths:
        valid, lines = validate_path(path, strict=args.strict, max_bytes=args.max_bytes)
        all_valid = all_valid and valid
        for line in lines:
            print(line)
    return EXIT_OK if all_valid else EXIT_INVALID


def validate_path(
    path: str, *, strict: bool = False, max_bytes: int | None = None
) -> tuple[bool, list[str]]:
    """Whether one file is valid, and its report lines."""
    from rubricate.cli.repo_reader import builtin_rubrics, reader_for
    from rubricate.rubric.validate import check_text
    from rubricate.yamlsource import MAX_SOURCE_BYTES, SOURCE_LIMIT

    limit = MAX_SOURCE_BYTES if max_bytes is None else max_bytes
    try:
        size = Path(path).stat().st_size
        if size > limit:
            return False, [
                f"{path}:1:1: file is too large: {size} bytes, over the {limit}-byte limit "
                "(refused before parsing; raise it with --max-bytes)"
            ]
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return False, [f"{path}: no such file"]
    except IsADirectoryError:
        return False, [f"{path}: is a directory"]
    except UnicodeDecodeError:
        return False, [f"{path}: not UTF-8 text"]
    except OSError as exc:
        return False, [f"{path}: {exc.strerror or exc}"]
    token = SOURCE_LIMIT.set(limit)
    try:
        report = check_text(
            text, path, _repo_reader(Path(path)), reader_for(path), builtin_rubrics()
        )
    finally:
        SOURCE_LIMIT.reset(token)
    return report.valid(strict=strict), report.lines()


def _repo_reader(config_path: Path) -> Callable[[str], str]:
    """Read files relative to the repository that holds this config file."""
    parent = config_path.resolve().parent
    root = parent.parent if parent.name == ".github" else Path.cwd()

    def read(relative: str) -> str:
        return (root / relative).read_text(encoding="utf-8")

    return read
