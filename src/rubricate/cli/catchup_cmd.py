"""`rubricate catch-up`: record merged or closed PRs missing from the ledger (shell: REST and git).

A scheduled workflow runs it, so a cancelled or failed run delays data instead of losing it.
It reads the config from the default branch, the ledger from the data branch and the closed PRs
from the REST API; `rubricate.bot.catch_up` decides what to record; the data-branch store
appends it.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from rubricate.action.catch_up_inputs import default_branch_config, linked_due_dates
from rubricate.action.runtime import ActionsRuntime
from rubricate.action.settings import data_branch, settings_from_env
from rubricate.bot.catch_up import plan_catch_up, pulls_to_record
from rubricate.config import Config
from rubricate.errors import ConfigError
from rubricate.gitnames import is_full_name
from rubricate.ledger.backends import DataBranchStore

if TYPE_CHECKING:
    from rubricate.action.settings import ActionSettings
    from rubricate.config import Config
    from rubricate.ledger.event import Event

DEFAULT_DAYS = 30.0
MAX_DAYS = 3650.0


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `rubricate catch-up`."""
    parser = subparsers.add_parser(
        "catch-up",
        help="record merged or closed PRs missing from the ledger",
        description=(
            "List PRs closed in the last DAYS days and record a final_approval (merged) or an "
            "abandoned event (closed) for each one the ledger misses. Reads GITHUB_REPOSITORY, "
            "GITHUB_API_URL, GITHUB_SERVER_URL and the token from INPUT_GITHUB-TOKEN or "
            "GITHUB_TOKEN, like `rubricate action`."
        ),
    )
    parser.add_argument(
        "--since",
        type=days_arg,
        default=DEFAULT_DAYS,
        metavar="DAYS",
        help=f"look at PRs closed in the last DAYS days (default {DEFAULT_DAYS:g})",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the planned events as JSON lines and write nothing",
    )
    parser.add_argument("--repo", metavar="OWNER/NAME", help="default: $GITHUB_REPOSITORY")
    parser.set_defaults(handler=run)


def days_arg(text: str) -> float:
    """A positive number of days, at most ten years."""
    try:
        days = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of days: {text!r}") from None
    if not 0 < days <= MAX_DAYS:
        raise argparse.ArgumentTypeError(f"DAYS must be in (0, {MAX_DAYS:g}], not {text}")
    return days


def run(args: argparse.Namespace) -> int:
    """Plan and record the missing events; exit 0 when done (or nothing was missing)."""
    settings = catch_up_settings(os.environ, repo=args.repo, dry_run=args.dry_run)
    runtime = ActionsRuntime(summary_path=settings.summary_path, secrets=settings.secrets)
    since = datetime.now(timezone.utc) - timedelta(days=args.since)
    with runtime.group("rubricate catch-up"):
        config = default_branch_config(settings.repo_remote, settings.token, settings.config_path)
        branch = data_branch(settings, config)
        store = DataBranchStore(
            settings.data_remote,
            branch,
            token=settings.token,
            config=config.reputation,
            key=settings.ledger_key,  # read and write as the gate does
        )
        with store:
            ledger = store.read()
            listed, events = plan_from_api(settings, config, ledger.events, since)
            report = describe_plan(listed, events, since, corrupt=len(ledger.corrupt))
            runtime.log(report)
            if settings.dry_run:
                sys.stdout.writelines(event.to_line() + "\n" for event in events)
                return 0
            if events:
                result = store.append(events)
                runtime.log(f"recorded {result.added} events on {branch} ({result.present} there)")
    runtime.add_summary(report)
    return 0


def plan_from_api(
    settings: ActionSettings, config: Config, events: Sequence[Event], since: datetime
) -> tuple[int, list[Event]]:
    """The number of closed PRs the REST API lists, and the events missing for them."""
    from rubricate.github.adapter import GitHubAdapter, connect

    client = connect(settings.token, settings.api_url)
    adapter = GitHubAdapter(client, settings.repository, bot_login=settings.bot_login)
    pulls = list(adapter.closed_pulls(since))
    todo = pulls_to_record(pulls, events, repo=settings.repository, since=since)
    planned = plan_catch_up(
        pulls,
        events,
        repo=settings.repository,
        since=since,
        sla_hours=config.reputation.sla_hours,
        linked_due_on=linked_due_dates(adapter, todo, settings.server_url),
    )
    return len(pulls), planned


def catch_up_settings(env: Mapping[str, str], *, repo: str | None, dry_run: bool) -> ActionSettings:
    """The Actions settings for catch-up; it needs no event, only the repository and a token."""
    settings = settings_from_env(
        env,
        event_name=env.get("GITHUB_EVENT_NAME") or "catch-up",
        event_path=env.get("GITHUB_EVENT_PATH") or os.devnull,
        dry_run=dry_run,
    )
    if repo is not None:
        if not is_full_name(repo):
            raise ConfigError(f"--repo must look like OWNER/NAME, not {repo!r}")
        settings = settings.with_repository(repo)
    if not is_full_name(settings.repository):
        raise ConfigError("catch-up needs the repository: set GITHUB_REPOSITORY or pass --repo")
    return settings


def describe_plan(listed: int, events: Sequence[Event], since: datetime, *, corrupt: int) -> str:
    """One paragraph for the log and the step summary."""
    lines = [
        f"catch-up: {listed} PRs closed since {since:%Y-%m-%d %H:%M}Z; "
        f"{len(events)} missing from the ledger"
    ]
    for event in events:
        gate = f" (gate {event.gate})" if event.gate else ""
        lines.append(f"- #{event.pr} {event.kind}{gate} at {event.at:%Y-%m-%dT%H:%M:%SZ}")
    if corrupt:
        lines.append(
            f"warning: {corrupt} corrupt ledger lines were kept aside (see `ledger verify`)"
        )
    return "\n".join(lines)
