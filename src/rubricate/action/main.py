"""`rubricate action`: one GitHub event in, the ledger and the views updated (shell).

The steps: read the event; gather the handler's inputs (base config and rubric, the PR's
content, the job from the data branch); let the pure core decide the effects; apply them, the
ledger first. A dry run prints the effects as JSON lines and writes nothing remote. Exit codes:
0 handled (a failing rubric is not an error), 1 the run failed, 2 a usage or config error. A
failure is shown in the log and as a failing `rubricate` check run; it is never green.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import traceback
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from rubricate.action.ports import FailureTarget, Reader
from rubricate.action.runtime import ActionsRuntime
from rubricate.action.settings import (
    details_url,
    settings_for,
    settings_from_env,
    without_placeholder_key,
)
from rubricate.bot.events import BotEvent, CommentEvent, Ignored, PullRequestEvent, ReviewEvent
from rubricate.bot.payload import parse_event
from rubricate.errors import ConfigError, RubricateError, SourceError, read_problem

if TYPE_CHECKING:  # the rest loads once an event needs handling: an ignored one costs nothing
    from rubricate.action.gather import Prepared
    from rubricate.action.ports import GitHubClient
    from rubricate.action.settings import ActionSettings
    from rubricate.bot.effects import Effect
    from rubricate.bot.events import GradersRun, JobEvent, MergeGroupEvent

Connect = Callable[[str | None, str], Any]


def run_action(
    settings: ActionSettings,
    *,
    runtime: ActionsRuntime | None = None,
    stdout: TextIO | None = None,
    now: datetime | None = None,
    connect: Connect | None = None,
) -> int:
    """Handle one event and return the exit code."""
    runtime = runtime or ActionsRuntime(
        output_path=settings.output_path, summary_path=settings.summary_path
    )
    for secret in settings.secrets:
        runtime.mask(secret)
    settings = without_placeholder_key(settings, runtime)
    target = FailureTarget()
    try:
        parsed, payload = read_event(settings)
        if isinstance(parsed, Ignored):
            runtime.log(f"rubricate: ignored {settings.event_name}: {parsed.reason}")
            return 0
        settings = settings_for(settings, parsed)
        from rubricate.action.gather import jobs_events, prepare
        from rubricate.action.merge_group import merge_group_effects
        from rubricate.bot.events import MergeGroupEvent
        from rubricate.bot.handlers import handle

        target.api = client(settings, connect)
        with (
            tempfile.TemporaryDirectory(prefix="rubricate-action-") as tmp,
            ExitStack() as stack,
        ):
            reader = Reader(settings, runtime, target.api, Path(tmp))
            if not settings.token:
                runtime.log("dry run without a token: no API reads, no git reads from GitHub")
            if isinstance(parsed, MergeGroupEvent):
                target.head_sha = target.gate_sha = parsed.head_sha
                effects = merge_group_effects(
                    reader,
                    parsed,
                    payload,
                    lambda repo, prs, branch: jobs_events(reader, repo, prs, branch, stack),
                )
                if settings.dry_run:
                    return dry_run(effects, stdout or sys.stdout, runtime)
                return apply(effects, None, target, settings, runtime)
            event = job_event(parsed, reader)
            if event is None:
                return 0
            aim(target, event, payload)
            prepared = prepare(
                reader, event, payload, stack, now or datetime.now(timezone.utc), target.learn_head
            )
            target.head_sha = prepared.head_sha
            effects = handle(event, prepared.snapshot, prepared.job, prepared.context)
            if settings.dry_run:
                return dry_run(effects, stdout or sys.stdout, runtime)
            return apply(effects, prepared, target, settings, runtime)
    except RubricateError as exc:
        return failed(exc, settings, runtime, target)
    except BrokenPipeError:
        raise  # stdout was closed early (`| head`): the CLI exits 1 without a traceback
    except Exception as exc:  # a bug, not a user mistake: keep the traceback in the log
        runtime.log(traceback.format_exc())
        return failed(exc, settings, runtime, target)


def read_event(
    settings: ActionSettings,
) -> tuple[BotEvent | GradersRun | MergeGroupEvent | Ignored, dict[str, Any]]:
    """The event payload, parsed; a payload that cannot be read is a config error."""
    path = Path(settings.event_path)
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        problem = read_problem(exc)
        raise ConfigError(f"cannot read the event payload {path}: {problem}") from None
    except ValueError as exc:
        raise ConfigError(f"the event payload {path} is not JSON: {exc}") from None
    except RecursionError:
        raise ConfigError(f"the event payload {path} is nested too deeply") from None
    if not isinstance(payload, dict):
        raise ConfigError(f"the event payload {path} is not a JSON object")
    return parse_event(settings.event_name, payload), payload


def client(settings: ActionSettings, connect: Connect | None) -> GitHubClient | None:
    """The GitHub client for the repository, or None without a token."""
    if not settings.token:
        return None
    from rubricate.github.adapter import GitHubAdapter
    from rubricate.github.adapter import connect as connect_github

    github = (connect or connect_github)(settings.token, settings.api_url)
    return GitHubAdapter(github, settings.repository, bot_login=settings.bot_login)


def job_event(parsed: BotEvent | GradersRun, reader: Reader) -> JobEvent | None:
    """The event a handler acts on: a graders run is first verified through its artifact."""
    from rubricate.bot.events import GradersRun

    if not isinstance(parsed, GradersRun):
        return parsed
    from rubricate.action.graders import graders_event

    event = graders_event(reader, parsed)
    if isinstance(event, Ignored):
        reader.runtime.log(f"rubricate: ignored {reader.settings.event_name}: {event.reason}")
        return None
    return event


def aim(target: FailureTarget, event: JobEvent, payload: Mapping[str, Any]) -> None:
    """Point the failure report at the event's comment, review and head."""
    if isinstance(event, CommentEvent):
        target.comment_id, target.number = event.comment_id, event.number
    if isinstance(event, ReviewEvent):
        node = payload.get("review", {}).get("node_id")
        target.review_nodes = {event.review_id: str(node)} if node else {}
    from rubricate.bot.events import GradersEvent

    if isinstance(event, PullRequestEvent | ReviewEvent | GradersEvent):
        target.head_sha = event.head_sha


def dry_run(effects: list[Effect], stdout: TextIO, runtime: ActionsRuntime) -> int:
    """Print the effects and apply only those that stay on the runner."""
    from rubricate.action.local import apply_local, print_effects

    print_effects(effects, stdout, runtime)
    for effect in effects:
        apply_local(effect, runtime)
    runtime.log(f"dry run: {len(effects)} effects printed, nothing written")
    return 0


def apply(
    effects: list[Effect],
    prepared: Prepared | None,
    target: FailureTarget,
    settings: ActionSettings,
    runtime: ActionsRuntime,
) -> int:
    """Apply the effects, the ledger first, then save the view state (none without `prepared`:
    a merge group's run writes only its status)."""
    from rubricate.action.executor import Executor
    from rubricate.action.gather import tip_status
    from rubricate.bot.view_state import ViewState, encode_views, view_path

    assert target.api is not None  # a real run has a token, so a client
    ledger = prepared.ledger if prepared else None
    executor = Executor(
        target.api,
        ledger.store if ledger else None,
        runtime,
        ledger.views if ledger else ViewState(pr=0),
        details_url=details_url(settings),
        review_nodes=target.review_nodes,
        regate=tip_status(prepared, settings.ledger_key) if prepared else None,
    )
    with runtime.group("rubricate: apply"):
        result = executor.apply(effects)
        views = result.views
        if prepared is not None and prepared.pull is not None:
            views.pull = prepared.pull
        if prepared is not None and encode_views(views) != prepared.ledger.views_bytes:
            path = view_path(prepared.context.repo, views.pr)
            prepared.ledger.store.write_extra(path, views.writer())
    result.raise_errors()
    return 0


def failed(
    exc: BaseException, settings: ActionSettings, runtime: ActionsRuntime, target: FailureTarget
) -> int:
    """Show the failure in the log, and on GitHub where it helps; the exit code."""
    code = exc.exit_code if isinstance(exc, RubricateError) else 1
    lines = [str(d) for d in exc.diagnostics] if isinstance(exc, SourceError) else [str(exc)]
    reason = runtime.redact("\n".join(lines) or type(exc).__name__)
    for line in lines:
        runtime.annotate("error", f"rubricate: {line}")
    if not settings.dry_run and target.api is not None:
        report_failure(target, reason, code, details_url(settings), runtime)
    return code


def report_failure(
    target: FailureTarget, reason: str, code: int, url: str | None, runtime: ActionsRuntime
) -> None:
    """A failing check run with the reason, and 😕 on the comment; best effort."""
    title = "rubricate: configuration error" if code == 2 else "rubricate could not run"
    api = target.api
    assert api is not None
    try:
        if target.gate_sha:
            api.set_status(target.gate_sha, "failure", title, "rubricate/approval", url)
        number = target.number  # a comment's run that failed before it learned the head
        head = target.head_sha or (api.pull(number)["head"]["sha"] if number else None)
        if head:
            output = {"title": title, "summary": f"{title}.\n\n```\n{reason[:60000]}\n```"}
            api.create_check_run(head, "rubricate", "failure", output, url)
        if target.comment_id is not None:
            api.react(target.comment_id, "confused")
        for node in target.review_nodes.values():
            api.react_to_node(node, "confused")
    except RubricateError as exc:
        runtime.annotate("warning", f"could not report the failure on GitHub: {exc}")


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
    runtime = ActionsRuntime()
    try:
        settings = settings_from_env(
            os.environ, event_name=args.event_name, event_path=args.event_path, dry_run=args.dry_run
        )
    except RubricateError as exc:
        runtime.annotate("error", f"rubricate: {exc}")
        return exc.exit_code
    runtime = ActionsRuntime(output_path=settings.output_path, summary_path=settings.summary_path)
    return run_action(settings, runtime=runtime)
