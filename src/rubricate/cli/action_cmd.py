"""`rubricate action`: handle the GitHub event of the current workflow run (shell)."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from rubricate.errors import RubricateError

if TYPE_CHECKING:
    from rubricate.action.runtime import ActionsRuntime


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `rubricate action`."""
    parser = subparsers.add_parser(
        "action",
        help="handle a GitHub event (the GitHub Action's entry point)",
        description=(
            "Handle the event named by GITHUB_EVENT_NAME and GITHUB_EVENT_PATH: score a PR, apply "
            "slash commands, record the merge. Reads the token from INPUT_GITHUB-TOKEN or "
            "GITHUB_TOKEN and the other GITHUB_* variables and INPUT_* inputs. Exit 0 when the "
            "event was handled (a failing rubric included), 1 when the run failed, 2 on a usage "
            "or config error."
        ),
    )
    parser.add_argument("--event-name", metavar="NAME", help="default: $GITHUB_EVENT_NAME")
    parser.add_argument("--event-path", metavar="PATH", help="default: $GITHUB_EVENT_PATH")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the effects as JSON lines and write nothing (also INPUT_DRY-RUN=true)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Read the settings from the environment and handle the event."""
    from rubricate.action.runtime import ActionsRuntime
    from rubricate.action.settings import settings_from_env

    runtime = ActionsRuntime()
    try:
        settings = settings_from_env(
            os.environ, event_name=args.event_name, event_path=args.event_path, dry_run=args.dry_run
        )
    except RubricateError as exc:
        runtime.annotate("error", f"rubricate: {exc}")
        return exc.exit_code
    runtime = ActionsRuntime(output_path=settings.output_path, summary_path=settings.summary_path)
    if needs_nothing(settings.event_name, settings.event_path, runtime):
        return 0
    from rubricate.action.main import run_action

    return run_action(settings, runtime=runtime)


def needs_nothing(event_name: str, event_path: str, runtime: ActionsRuntime) -> bool:
    """True for an event the bot ignores (a comment with no command, say): logged in one line,
    before the orchestration and its dependencies even load. Anything unreadable is left to
    `run_action`, which reports it."""
    import json
    from pathlib import Path

    from rubricate.bot.payload import Ignored, parse_event

    try:
        payload = json.loads(Path(event_path).read_text(encoding="utf-8"))
        parsed = parse_event(event_name, payload) if isinstance(payload, dict) else None
    except (OSError, ValueError, RecursionError, RubricateError):
        return False
    if isinstance(parsed, Ignored):
        runtime.log(f"rubricate: ignored {event_name}: {parsed.reason}")
    return isinstance(parsed, Ignored)
