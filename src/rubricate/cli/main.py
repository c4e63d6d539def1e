"""The `rubricate` command: a table of subcommands, each in its own module.

Each subcommand module exposes `add_parser(subparsers)` (or the function `MODULE:FUNCTION` names),
which registers its parser and sets `handler`, a function taking the parsed namespace and
returning the exit code. `Progress` is the one status line long commands show on stderr.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import TextIO

from rubricate import __version__
from rubricate.errors import RubricateError, SourceError
from rubricate.redaction import env_secrets, redact
from rubricate.suggest import did_you_mean

# Every subcommand is named by its module, imported only when named on the command line (all of
# them for --help): several pull a heavy third-party package the others do not need (jsonschema
# for score, github for ledger, action and catch-up, pygal for report and reputation, psycopg for
# db), and a run loads only its own command's modules.
SUBCOMMANDS: dict[str, str] = {
    "validate": "rubricate.cli.rubric_cmd:add_validate_parser",
    "rubric": "rubricate.cli.rubric_cmd",
    "score": "rubricate.cli.score_cmd",
    "ledger": "rubricate.cli.ledger_cmd",
    "reputation": "rubricate.cli.report_cmd:add_reputation_parser",
    "action": "rubricate.action.main",
    "catch-up": "rubricate.cli.catchup_cmd",
    "report": "rubricate.cli.report_cmd",
    "init": "rubricate.cli.init_cmd",
    "db": "rubricate.cli.db_cmd",
    "serve": "rubricate.cli.serve_cmd:add_serve_parser",
    "worker": "rubricate.cli.serve_cmd:add_worker_parser",
}

Handler = Callable[[argparse.Namespace], int]


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The top-level parser: with only the subcommand `argv` names, else with every one."""
    parser = argparse.ArgumentParser(
        prog="rubricate", description="Score pull-request deliverables against rubrics."
    )
    parser.add_argument("--version", action="version", version=f"rubricate {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    if argv and argv[0] in SUBCOMMANDS:
        named = [argv[0]]
    else:  # `--version` prints and exits before any subcommand is parsed
        named = [] if argv and argv[0] == "--version" else list(SUBCOMMANDS)
    for target in (SUBCOMMANDS[command] for command in named):
        name, _, adder = target.partition(":")
        if importlib.util.find_spec(name) is not None:
            getattr(importlib.import_module(name), adder or "add_parser")(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; user mistakes print a clear message and exit non-zero, never a traceback."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        refuse_unknown(parser, argv, unknown)
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
    except RubricateError as exc:  # an error can quote a server that echoed a token: masked
        print(f"rubricate: error: {redact(str(exc), env_secrets(os.environ))}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1


def refuse_unknown(
    parser: argparse.ArgumentParser, argv: Sequence[str], unknown: Sequence[str]
) -> None:
    """Exit 2 with the usage of the (sub)command `argv` names, and the closest option to each
    mistyped one (`--bse` → did you mean '--base'?)."""
    command = parser
    for word in argv:
        actions = [a for a in command._actions if isinstance(a, argparse._SubParsersAction)]
        chosen = actions[0].choices.get(word) if actions else None
        if isinstance(chosen, argparse.ArgumentParser):
            command = chosen
    options = [o for a in command._actions for o in a.option_strings if o.startswith("--")]
    hints = [
        did_you_mean(word.partition("=")[0], options) for word in unknown if word.startswith("-")
    ]
    command.error(f"unrecognized arguments: {' '.join(unknown)}{''.join(hints)}")


class Progress:
    """One status line on stderr for a long run: shown once `delay` seconds have passed, updated
    every `interval`, and wiped at the end.

    Only on a terminal: silent when stderr is a pipe or a file, and in GitHub Actions (the log
    would keep every update).
    """

    def __init__(
        self, stream: TextIO | None = None, *, delay: float = 2.0, interval: float = 0.5
    ) -> None:
        self._stream = sys.stderr if stream is None else stream
        self._delay, self._interval = delay, interval
        is_tty = getattr(self._stream, "isatty", lambda: False)()
        self.enabled = bool(is_tty) and os.environ.get("GITHUB_ACTIONS") != "true"
        self._text = ""
        self._start = time.monotonic()
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._shown = False
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Progress:
        if self.enabled:
            self._thread = threading.Thread(target=self._run, name="progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()
        self._wipe()

    def step(self, text: str) -> None:
        """Name what the run is doing now."""
        self._text = text

    def say(self, message: str, file: TextIO | None = None) -> None:
        """Print a line (on stderr, or `file`) with the status line wiped first."""
        self._wipe()
        print(message, file=self._stream if file is None else file)

    def _run(self) -> None:
        if self._done.wait(self._delay):
            return
        while not self._done.is_set():
            seconds = time.monotonic() - self._start
            with self._lock:
                self._stream.write(f"\r\x1b[Krubricate: {self._text} ({seconds:.0f} s)")
                self._stream.flush()
                self._shown = True
            self._done.wait(self._interval)

    def _wipe(self) -> None:
        with self._lock:
            if self._shown:
                self._stream.write("\r\x1b[K")
                self._stream.flush()
                self._shown = False


if __name__ == "__main__":
    sys.exit(main())
