"""`rubricate action`: one GitHub event in, the ledger and the views updated (shell).

The steps: read the event; gather the handler's inputs (base config and rubric, the PR's
content, the job from the data branch); let the pure core decide the effects; apply them, the
ledger first. A dry run prints the effects as JSON lines and writes nothing remote. Exit codes:
0 handled (a failing rubric is not an error), 1 the run failed, 2 a usage or config error. A
failure is shown in the log and as a failing `rubricate` check run; it is never green.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import tempfile
import traceback
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from rubricate.action.inputs import Reader
from rubricate.action.prepare import Prepared, merge_group_effects, prepare, tip_status
from rubricate.action.runtime import ActionsRuntime
from rubricate.bot.merge_queue import MergeGroupEvent
from rubricate.bot.on_graders import GradersEvent, GradersRun, JobEvent
from rubricate.bot.payload import (
    BotEvent,
    CommentEvent,
    Ignored,
    PullRequestEvent,
    ReviewEvent,
    parse_event,
)
from rubricate.bot.views import ViewState, decode_views, encode_views, view_path
from rubricate.errors import ConfigError, RubricateError, SourceError, read_problem

if TYPE_CHECKING:
    from rubricate.action.ports import GitHubClient
    from rubricate.action.settings import ActionSettings
    from rubricate.bot.effects import Effect

Connect = Callable[[str | None, str], Any]


@dataclass
class FailureTarget:
    """Where a failure is shown on GitHub, filled in as the run learns it."""

    api: GitHubClient | None = None
    head_sha: str | None = None
    comment_id: int | None = None
    number: int | None = None
    gate_sha: str | None = None
    """A commit whose `rubricate/approval` a failed run sets to failure (a merge group's)."""
    review_nodes: dict[int, str] = field(default_factory=dict)

    def learn_head(self, head_sha: str) -> None:
        """The PR's head, as soon as it is known (a bad config is then shown on it)."""
        self.head_sha = self.head_sha or head_sha


def _merged(views: ViewState) -> Callable[[bytes | None], bytes | None]:
    """The view state to write over the tip's, keeping the ids another run answered meanwhile."""

    def write(tip: bytes | None) -> bytes | None:
        data = encode_views(views.merged_with(decode_views(tip, views.pr)))
        return None if data == tip else data

    return write


def without_placeholder_key(settings: ActionSettings, runtime: ActionsRuntime) -> ActionSettings:
    """Settings without an OpenAI key that is obviously a placeholder (`none`), reported."""
    from rubricate.redaction import is_placeholder

    key = settings.openai_api_key
    if key is None or not is_placeholder(key):
        return settings
    runtime.annotate(
        "warning",
        f"rubricate: the OpenAI key looks like a placeholder ({len(key)} characters, not a real "
        "key): the judge is off; set the secret, or leave the input empty",
    )
    return dataclasses.replace(settings, openai_api_key=None)


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
            reader = Reader(settings, runtime, target.api, Path(tmp))
            if not settings.token:
                runtime.log("dry run without a token: no API reads, no git reads from GitHub")
            if isinstance(parsed, MergeGroupEvent):
                target.head_sha = target.gate_sha = parsed.head_sha
                effects = merge_group_effects(reader, parsed, payload, stack)
                if settings.dry_run:
                    return dry_run(effects, stdout or sys.stdout, runtime)
                return apply(effects, None, target, settings, runtime)
            event = job_event(parsed, reader)
            if event is None:
                return 0
            aim(target, event, payload)
            from rubricate.bot.handlers import handle

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


def settings_for(
    settings: ActionSettings, event: BotEvent | GradersRun | MergeGroupEvent
) -> ActionSettings:
    """The settings with the event's repository; a real run needs a token."""
    if not settings.repository:
        settings = settings.with_repository(event.repo)
    if not settings.token and not settings.dry_run:
        raise ConfigError("no GitHub token: set GITHUB_TOKEN or the github-token input")
    return settings


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
    if isinstance(event, PullRequestEvent | ReviewEvent | GradersEvent):
        target.head_sha = event.head_sha


def dry_run(effects: list[Effect], stdout: TextIO, runtime: ActionsRuntime) -> int:
    """Print the effects and apply only those that stay on the runner."""
    from rubricate.action.executor import apply_local, print_effects

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
            prepared.ledger.store.write_extra(path, _merged(views))
    result.raise_errors()
    return 0


def details_url(settings: ActionSettings) -> str | None:
    """The workflow run's page, linked from the check run."""
    if not settings.run_id or not settings.repository:
        return None
    return f"{settings.server_url}/{settings.repository}/actions/runs/{settings.run_id}"


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
