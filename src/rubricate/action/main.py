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
from collections.abc import Callable
from contextlib import ExitStack
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO

from rubricate.action.data_branch import shared_head, tip_status
from rubricate.action.executor import Executor
from rubricate.action.gather import Gathered, gather, locate
from rubricate.action.graders import graders_event
from rubricate.action.handles import FailureTarget, GitHubClient, RunHandles
from rubricate.action.local import apply_local, print_effects
from rubricate.action.merge_group import merge_group_effects
from rubricate.action.runtime import ActionsRuntime
from rubricate.action.settings import (
    ActionSettings,
    details_url,
    settings_for,
    settings_from_env,
    without_placeholder_key,
)
from rubricate.bot.effects import Effect
from rubricate.bot.events import (
    BotEvent,
    GradersRun,
    Ignored,
    JobEvent,
    MergeGroupEvent,
)
from rubricate.bot.handlers import handle
from rubricate.bot.payload import parse_event
from rubricate.bot.view_state import ViewState, encode_views, view_path
from rubricate.errors import ConfigError, RubricateError, SourceError, read_problem

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
        target.api = client(settings, connect)
        with (
            tempfile.TemporaryDirectory(prefix="rubricate-action-") as tmp,
            ExitStack() as stack,
        ):
            handles = RunHandles(settings, runtime, target.api, Path(tmp))
            if not settings.token:
                runtime.log("dry run without a token: no API reads, no git reads from GitHub")
            if isinstance(parsed, MergeGroupEvent):
                target.head_sha = target.gate_sha = parsed.head_sha
                effects = merge_group_effects(handles, parsed, payload, stack)
                if settings.dry_run:
                    return dry_run(effects, stdout or sys.stdout, runtime)
                return apply(effects, None, target, settings, runtime)
            event = job_event(parsed, handles)
            if event is None:
                return 0
            target.aim(event, payload)
            low = target.lowered()  # the head's green goes down before anything can fail
            if low is not None and target.api is not None and not settings.dry_run:
                url = details_url(settings)
                target.api.set_status(low.sha, low.state, low.description, low.context, url)
            located = locate(handles, event, payload, stack)
            if located.pull is not None:  # a bad config is then shown on the head
                target.head_sha = target.head_sha or located.pull.head_sha
            gathered = gather(
                handles, event, payload, located, stack, now or datetime.now(timezone.utc)
            )
            target.head_sha = gathered.head_sha
            effects = handle(event, gathered.snapshot, gathered.job, gathered.context)
            if settings.dry_run:
                return dry_run(effects, stdout or sys.stdout, runtime)
            return apply(effects, gathered, target, settings, runtime)
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
    # PyGithub loads with the adapter: a dry run without a token never needs it
    from rubricate.github.adapter import GitHubAdapter
    from rubricate.github.adapter import connect as connect_github

    github = (connect or connect_github)(settings.token, settings.api_url)
    return GitHubAdapter(github, settings.repository, bot_login=settings.bot_login)


def job_event(parsed: BotEvent | GradersRun, handles: RunHandles) -> JobEvent | None:
    """The event a handler acts on: a graders run is first verified through its artifact."""
    if not isinstance(parsed, GradersRun):
        return parsed
    event = graders_event(handles, parsed)
    if isinstance(event, Ignored):
        handles.runtime.log(f"rubricate: ignored {handles.settings.event_name}: {event.reason}")
        return None
    return event


def dry_run(effects: list[Effect], stdout: TextIO, runtime: ActionsRuntime) -> int:
    """Print the effects and apply only those that stay on the runner."""
    print_effects(effects, stdout, runtime)
    for effect in effects:
        apply_local(effect, runtime)
    runtime.log(f"dry run: {len(effects)} effects printed, nothing written")
    return 0


def apply(
    effects: list[Effect],
    gathered: Gathered | None,
    target: FailureTarget,
    settings: ActionSettings,
    runtime: ActionsRuntime,
) -> int:
    """Apply the effects, the ledger first, then save the view state (none without `gathered`:
    a merge group's run writes only its status)."""
    assert target.api is not None  # a real run has a token, so a client
    stored = gathered.stored if gathered else None
    regate = shared = None
    if gathered is not None:
        context, pr = gathered.context, gathered.job.pr
        regate = tip_status(gathered.stored, context.repo, pr, context.rubric, settings.ledger_key)
        base_ref = gathered.pull.base_ref if gathered.pull else None
        shared = shared_head(settings, gathered.stored, context.repo, pr, context.rubric, base_ref)
    executor = Executor(
        target.api,
        stored.store if stored else None,
        runtime,
        stored.views if stored else ViewState(pr=0),
        details_url=details_url(settings),
        review_nodes=target.review_nodes,
        regate=regate,
        shared=shared,
        doubted=[f"{low.context}@{low.sha}"] if (low := target.lowered()) else [],
    )
    with runtime.group("rubricate: apply"):
        result = executor.apply(effects)
        views = result.views
        if gathered is not None and gathered.pull is not None:
            views.pull = gathered.pull
        key = settings.ledger_key
        if gathered is not None and encode_views(views, key) != gathered.stored.views_bytes:
            path = view_path(gathered.context.repo, views.pr)
            gathered.stored.store.write_extra(path, views.writer(key))
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
