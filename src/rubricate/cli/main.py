"""The `rubricate` command: a registry of subcommands, each in its own module.

Each subcommand module exposes `add_parser(subparsers)`, which registers its parser and sets
`handler`, a function taking the parsed namespace and returning the exit code. Subcommand
modules import their heavy dependencies inside the handler, so start-up stays cheap.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Callable, Sequence

from rubricate import __version__
from rubricate.errors import RubricateError, SourceError

SUBCOMMANDS: tuple[str, ...] = (
    "rubricate.cli.validate_cmd",
    "rubricate.cli.rubric_cmd",
    "rubricate.cli.score_cmd",
    "rubricate.cli.ledger_cmd",
    "rubricate.cli.reputation_cmd",
    "rubricate.cli.action_cmd",
    "rubricate.cli.catchup_cmd",
    "rubricate.cli.report_cmd",
)

Handler = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every available subcommand."""
    parser = argparse.ArgumentParser(
        prog="rubricate", description="Score pull-request deliverables against rubrics."
    )
    parser.add_argument("--version", action="version", version=f"rubricate {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name).add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; user mistakes print a clear message and exit non-zero, never a traceback."""
    parser = build_parser()
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
