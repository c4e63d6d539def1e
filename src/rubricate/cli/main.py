"""The `rubricate` command: a registry of subcommands, each in its own module.

Each subcommand module exposes `add_parser(subparsers)`, which registers its parser and sets
`handler`, a function taking the parsed namespace and returning the exit code. Subcommand
modules import their heavy dependencies inside the handler, and only the module of the command
named on the command line is imported (all of them for `--help`), so start-up stays cheap.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Callable, Sequence

from rubricate import __version__
from rubricate.errors import RubricateError, SourceError

SUBCOMMANDS: dict[str, str] = {
    "validate": "rubricate.cli.validate_cmd",
    "rubric": "rubricate.cli.rubric_cmd",
    "score": "rubricate.cli.score_cmd",
    "ledger": "rubricate.cli.ledger_cmd",
    "reputation": "rubricate.cli.reputation_cmd",
    "action": "rubricate.action.main",
    "catch-up": "rubricate.cli.catchup_cmd",
    "report": "rubricate.cli.report_cmd",
    "init": "rubricate.cli.init_cmd",
}

Handler = Callable[[argparse.Namespace], int]


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The top-level parser: with only the subcommand `argv` names, else with every one."""
    parser = argparse.ArgumentParser(
        prog="rubricate", description="Score pull-request deliverables against rubrics."
    )
    parser.add_argument("--version", action="version", version=f"rubricate {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    named = [argv[0]] if argv and argv[0] in SUBCOMMANDS else list(SUBCOMMANDS)
    for name in (SUBCOMMANDS[command] for command in named):
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name).add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; user mistakes print a clear message and exit non-zero, never a traceback."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return handler(args)
    except SourceError as exc:
        for diagnostic in exc.diagnostics:
            print(diagnostic, file=sys.stderr)
        return exc.exit_code
    except RubricateError as exc:
        print(f"rubricate: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    sys.exit(main())
