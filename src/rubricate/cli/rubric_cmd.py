"""`rubricate rubric show|score|list`: inspect a rubric and apply its math (shell: reads files).

Without NAME|PATH the active rubric is used: the one `.github/rubricate.yml` names, else
agora-v3. `--json` prints the machine shapes; otherwise a readable table.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rubricate.rubric.model import Rubric, ScoreResult

DEFAULT_CONFIG = ".github/rubricate.yml"


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
    from rubricate.rubric.describe import describe_json, describe_markdown, describe_text

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
    from rubricate.rubric.agentv_score import score_any
    from rubricate.rubric.score_args import parse_scores

    items: list[str] = list(args.items)
    ref = items.pop(0) if items and "=" not in items[0] else None
    rubric = active_rubric(ref, args.config)
    result = score_any(rubric, parse_scores(rubric, items))
    if args.json:
        _print_json(result.as_dict())
    else:
        print(score_table(rubric, result), end="")
    return 0


def run_list(args: argparse.Namespace) -> int:
    """Print the built-in rubric names, one a line."""
    from rubricate.rubric.resolve import builtin_names

    for name in builtin_names():
        print(name)
    return 0


def active_rubric(ref: str | None, config_path: str | None) -> Rubric:
    """The named rubric, else the config's, else the default; config paths are repo-relative.

    Without `--config`, `.github/rubricate.yml` is used when it exists; a `--config` that was
    given must exist.
    """
    from rubricate.cli.repo_reader import local_reader, reader_for
    from rubricate.cli.textfile import read_text
    from rubricate.config import load_config
    from rubricate.errors import ConfigError
    from rubricate.rubric.resolve import DEFAULT_RUBRIC, resolve_rubric

    if ref is not None:
        return resolve_rubric(ref, reader_for(ref.partition("#")[0] or "."))
    config_file = Path(config_path or DEFAULT_CONFIG)
    if config_path is None and not config_file.exists():
        return resolve_rubric(DEFAULT_RUBRIC)
    config = load_config(read_text(str(config_file), "the config"), str(config_file))
    root = config_file.resolve().parent.parent if config_file.parent.name == ".github" else Path()
    try:
        return resolve_rubric(config.rubric, local_reader(root))
    except ConfigError as exc:
        raise ConfigError(f"{exc} (named by {config_file})") from None


def score_table(rubric: Rubric, result: ScoreResult) -> str:
    """The human output of `rubric score`: one row per criterion, then the verdict."""
    from rubricate.rubric.agentv_score import grader_lines
    from rubricate.rubric.describe import format_table

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
    return f"{round(value, 4):g}"


def _print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False))
