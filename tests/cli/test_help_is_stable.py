"""`rubricate --help`, every subcommand's help and its usage errors read as recorded: loading
only the named command's modules (or any import change) leaves them word for word as they were.

`help_texts.json` was recorded from the CLI before the ledger commands' imports were cut.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rubricate.cli.main import build_parser, main

RECORDED = Path(__file__).with_name("help_texts.json")
MISTYPED = (
    ["ledger", "append", "--remote", "r", "--jsn", "-"],
    ["ledger", "verify", "--remot", "x"],
    ["report", "--ful"],
)


def _run(argv: list[str]) -> dict[str, Any]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code: Any = main(argv)
        except SystemExit as exc:
            code = exc.code
    return {"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()}


def _commands(parser: argparse.ArgumentParser, prefix: list[str]) -> Iterator[list[str]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield [*prefix, name]
                yield from _commands(sub, [*prefix, name])


def _texts() -> dict[str, dict[str, Any]]:
    texts = {"(none)": _run([]), "--help": _run(["--help"]), "nonsense": _run(["nonsense"])}
    for argv in _commands(build_parser(None), []):
        texts[" ".join([*argv, "--help"])] = _run([*argv, "--help"])
        texts[" ".join([*argv, "--bogus"])] = _run([*argv, "--bogus"])
    for argv in MISTYPED:
        texts[" ".join(argv)] = _run(argv)
    return texts


def test_help_and_usage_errors_read_as_recorded(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("COLUMNS", "100")  # argparse wraps to the terminal's width
    monkeypatch.chdir(tmp_path)
    recorded = json.loads(RECORDED.read_text())
    assert _texts() == recorded
