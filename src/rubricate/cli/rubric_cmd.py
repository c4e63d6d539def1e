"""`rubricate rubric show|score|list`: inspect a rubric and apply its math (shell: reads files).

Without NAME|PATH the active rubric is used: the one `.github/rubricate.yml` names, else
agora-v3. `--json` prints the machine shapes; otherwise a readable table.

`rubricate validate PATH...`: check rubric and config files (shell: reads the files).

`resolve_rubric` finds a rubric by built-in name, path or `PATH#CASE_ID` for every command: it
hands the built-ins (`rubric_sources.builtin_rubrics`) to the core (`loader.find_rubric`), which
reads every other file through the caller's `read_file` (the bot reads the base ref; the
command line reads the working tree).

Prints `ok PATH (DIALECT, N criteria)` for each valid rubric (one line per case of a
multi-case file), `ok PATH (config)` for a valid config, and `PATH:LINE:COL: message` for
each problem, all on stdout. Exit code: 0 all valid, 2 any invalid (an input error, as for
every command) or a usage error. A file over `--max-bytes` (1 MiB) is refused before it is read.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rubricate.cli.anchor_notes import between_anchors
from rubricate.cli.repo_reader import reader_for
from rubricate.cli.text_input import read_text
from rubricate.config import load_config
from rubricate.errors import ConfigError
from rubricate.numbers import decimal_text
from rubricate.rubric.describe import (
    describe_json,
    describe_markdown,
    describe_text,
    format_table,
    grader_lines,
)
from rubricate.rubric.loader import find_rubric
from rubricate.rubric.model import Rubric, ScoreResult
from rubricate.rubric.score_args import parse_scores
from rubricate.rubric.scoring import score
from rubricate.rubric.validate import check_text
from rubricate.rubric_sources import ReadFile, allowed_env, builtin_rubrics, local_reader
from rubricate.yamlsource import MAX_SOURCE_BYTES, SOURCE_LIMIT

DEFAULT_CONFIG = ".github/rubricate.yml"
DEFAULT_RUBRIC = "agora-v3"


def builtin_names() -> tuple[str, ...]:
    """The names of the built-in rubrics, sorted."""
    return tuple(sorted(builtin_rubrics()))


def resolve_rubric(
    ref: str, read_file: ReadFile | None = None, env: Mapping[str, str | None] | None = None
) -> Rubric:
    """The rubric named by a built-in name, a path, or `PATH#CASE_ID`; `env` holds the values
    of the `{{ env.X }}` names the config allows (see `allowed_env`)."""
    return find_rubric(ref, read_file, builtin_rubrics(), env)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `rubricate rubric` and its subcommands."""
    parser = subparsers.add_parser("rubric", help="show a rubric, or score by hand against it")
    commands = parser.add_subparsers(dest="rubric_command", metavar="SUBCOMMAND", required=True)
    show = commands.add_parser("show", help="show criteria, weights, scale, pass rule and version")
    _add_ref(show)
    show.add_argument("--markdown", action="store_true", help="print the markdown the bot posts")
    show.set_defaults(handler=run_show)
    score = commands.add_parser(
        "score",
        help="apply the scoring math to given scores",
        description="Score ID=VALUE pairs (VALUE: a number, true/false or null). "
        "IDs accept unique prefixes; criteria not given count as missing.",
    )
    score.add_argument("items", nargs="*", metavar="[NAME|PATH] ID=VALUE", help="scores")
    score.add_argument("--json", action="store_true", help="print JSON")
    score.add_argument(
        "--config", help=f"config naming the active rubric (default {DEFAULT_CONFIG})"
    )
    score.set_defaults(handler=run_score)
    listing = commands.add_parser("list", help="list the built-in rubrics")
    listing.set_defaults(handler=run_list)


def _add_ref(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "ref", nargs="?", metavar="NAME|PATH", help="built-in name, path, PATH#CASE"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument(
        "--config", help=f"config naming the active rubric (default {DEFAULT_CONFIG})"
    )


def run_show(args: argparse.Namespace) -> int:
    """Print the rubric as a table, markdown or JSON."""
    rubric = active_rubric(args.ref, args.config)
    if args.json:
        _print_json(describe_json(rubric))
    elif args.markdown:
        print(describe_markdown(rubric), end="")
    else:
        print(describe_text(rubric), end="")
    return 0


def run_score(args: argparse.Namespace) -> int:
    """Score the given values; exit 0 whatever the verdict."""
    items: list[str] = list(args.items)
    ref = items.pop(0) if items and "=" not in items[0] else None
    rubric = active_rubric(ref, args.config)
    scores = parse_scores(rubric, items)
    result = score(rubric, scores)
    for note in between_anchors(rubric, scores):
        print(note, file=sys.stderr)
    if args.json:
        _print_json(result.as_dict())
    else:
        print(score_table(rubric, result), end="")
    return 0


def run_list(args: argparse.Namespace) -> int:
    """Print the built-in rubric names, one a line."""
    for name in builtin_names():
        print(name)
    return 0


def active_rubric(ref: str | None, config_path: str | None) -> Rubric:
    """The named rubric, else the config's, else the default; config paths are repo-relative.

    Without `--config`, `.github/rubricate.yml` is used when it exists; a `--config` that was
    given must exist.
    """
    if ref is not None:
        return resolve_rubric(ref, reader_for(ref.partition("#")[0] or "."))
    config_file = Path(config_path or DEFAULT_CONFIG)
    if config_path is None and not config_file.exists():
        return resolve_rubric(DEFAULT_RUBRIC)
    config = load_config(read_text(str(config_file), "the config"), str(config_file))
    root = config_file.resolve().parent.parent if config_file.parent.name == ".github" else Path()
    try:
        return resolve_rubric(config.rubric, local_reader(root), allowed_env(config.agentv.env))
    except ConfigError as exc:
        raise ConfigError(f"{exc} (named by {config_file})") from None


def score_table(rubric: Rubric, result: ScoreResult) -> str:
    """The human output of `rubric score`: one row per criterion, then the verdict."""
    rows = [("criterion", "score", "passed")]
    for item in result.criteria:
        passed = {True: "yes", False: "no", None: "-"}[item.passed]
        if item.id in result.missing:
            passed = "missing"
        rows.append((item.id, _show(item.score), passed))
    lines = [f"{rubric.id}  version {rubric.version}", "", *format_table(rows), ""]
    scored = f" ({result.scored_count} of {len(result.criteria)} scored)" if result.missing else ""
    lines.append(f"weighted total  {_show(result.weighted_total)}{scored}")
    lines.append(f"normalized      {_show(result.normalized)}{scored}")
    decided = ", already decided" if result.missing and result.decided else ""
    lines.append(f"verdict         {result.verdict}{decided}")
    if result.failed:
        lines.append(f"failed          {', '.join(result.failed)}")
    if result.missing:
        lines.append(f"missing         {', '.join(result.missing)}")
    if result.best_total is not None:
        lines.append(f"best reachable  {_show(result.best_total)}")
    lines += grader_lines(result)
    return "\n".join(lines) + "\n"


def _show(value: float | bool | None) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    return decimal_text(value, 4)


def _print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False))


EXIT_OK = 0
EXIT_INVALID = 2


def add_validate_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    parser.set_defaults(handler=run_validate)


def run_validate(args: argparse.Namespace) -> int:
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
    return report.valid(strict=strict), report.lines(strict=strict)


def _repo_reader(config_path: Path) -> Callable[[str], str]:
    """Read files relative to the repository that holds this config file."""
    parent = config_path.resolve().parent
    root = parent.parent if parent.name == ".github" else Path.cwd()

    def read(relative: str) -> str:
        return (root / relative).read_text(encoding="utf-8")

    return read
