"""`rubricate action`: one GitHub event in, the ledger and the views updated (shell).

The steps: read the event; gather the handler's inputs (base config and rubric, the PR's
content, the job from the data branch); let the pure core decide the effects; apply them, the
ledger first. A dry run prints the effects as JSON lines and writes nothing remote. Exit codes:
0 handled (a failing rubric is not an error), 1 the run failed, 2 a usage or config error. A
failure is shown in the log and as a failing `rubricate` check run; it is never green.
"""

from __future__ import annotations

import json
import sys
import tempfile
import traceback
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO

from rubricate.action.inputs import Reader
from rubricate.action.prepare import Prepared, prepare
from rubricate.action.runtime import ActionsRuntime
from rubricate.action.settings import ActionSettings
from rubricate.bot.payload import (
    BotEvent,
    CommentEvent,
    Ignored,
    PullRequestEvent,
    ReviewEvent,
    parse_event,
)
from rubricate.bot.payload_graders import GradersRun, JobEvent
from rubricate.bot.view_state import ViewState, decode_views, encode_views, view_path
from rubricate.errors import ConfigError, RubricateError, SourceError, read_problem

Connect = Callable[[str | None, str], Any]


def _merged(views: ViewState) -> Callable[[bytes | None], bytes | None]:
    """The view state to write over the tip's, keeping the ids another run answered meanwhile."""

    def write(tip: bytes | None) -> bytes | None:
        data = encode_views(views.merged_with(decode_views(tip, views.pr)))
        return None if data == tip else data

    return write


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
    run = _Run(settings, runtime, stdout or sys.stdout, now or datetime.now(timezone.utc), connect)
    return run.main()


class _Run:
    """One invocation: keeps what is known so far, so a failure can be reported where it helps."""

    def __init__(
        self,
        settings: ActionSettings,
        runtime: ActionsRuntime,
        stdout: TextIO,
        now: datetime,
        connect: Connect | None,
    ) -> None:
        self.settings = settings
        self.runtime = runtime
        self.stdout = stdout
        self.now = now
        self.connect = connect
        self.api: Any = None
        self.head_sha: str | None = None
        self.comment_id: int | None = None
        self.review_nodes: dict[int, str] = {}

    def main(self) -> int:
        try:
            event, payload = self._event()
        except RubricateError as exc:
            return self._failed(exc)
        if isinstance(event, Ignored):
            self.runtime.log(f"rubricate: ignored {self.settings.event_name}: {event.reason}")
            return 0
        try:
            with (
                tempfile.TemporaryDirectory(prefix="rubricate-action-") as tmp,
                ExitStack() as stack,
            ):
                return self._handle(event, payload, Path(tmp), stack)
        except RubricateError as exc:
            return self._failed(exc)
        except BrokenPipeError:
            raise  # stdout was closed early (`| head`): the CLI exits 1 without a traceback
        except Exception as exc:  # a bug, not a user mistake: keep the traceback in the log
            self.runtime.log(traceback.format_exc())
            return self._failed(exc)

    def _event(self) -> tuple[BotEvent | GradersRun | Ignored, dict[str, Any]]:
        path = Path(self.settings.event_path)
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
        return parse_event(self.settings.event_name, payload), payload

    def _handle(
        self,
        parsed: BotEvent | GradersRun,
        payload: Mapping[str, Any],
        tmp: Path,
        stack: ExitStack,
    ) -> int:
        from rubricate.bot.handlers import handle

        settings = self.settings = self._settings_for(parsed)
        self.api = self._client(settings)
        reader = Reader(settings, self.runtime, self.api, tmp)
        if not settings.token:
            self.runtime.log("dry run without a token: no API reads, no git reads from GitHub")
        event = self._job_event(parsed, reader)
        if event is None:
            return 0
        if isinstance(event, CommentEvent):
            self.comment_id = event.comment_id
        if isinstance(event, ReviewEvent):
            node = payload.get("review", {}).get("node_id")
            self.review_nodes = {event.review_id: str(node)} if node else {}
        if isinstance(event, PullRequestEvent | ReviewEvent):
            self.head_sha = event.head_sha
        prepared = prepare(reader, event, payload, stack, self.now, self._head_known)
        self.head_sha = prepared.head_sha
        effects = handle(event, prepared.snapshot, prepared.job, prepared.context)
        if settings.dry_run:
            return self._dry_run(effects)
        return self._apply(effects, prepared)

    def _head_known(self, head_sha: str) -> None:
        self.head_sha = self.head_sha or head_sha

    def _job_event(self, parsed: BotEvent | GradersRun, reader: Reader) -> JobEvent | None:
        """The event a handler acts on: a graders run is first verified through its artifact."""
        if not isinstance(parsed, GradersRun):
            return parsed
        from rubricate.action.graders import graders_event

        event = graders_event(reader, parsed)
        if isinstance(event, Ignored):
            self.runtime.log(f"rubricate: ignored {self.settings.event_name}: {event.reason}")
            return None
        self.head_sha = event.head_sha
        return event

    def _settings_for(self, event: BotEvent | GradersRun) -> ActionSettings:
        settings = self.settings
        if not settings.repository:
            settings = settings.with_repository(event.repo)
        if not settings.token and not settings.dry_run:
            raise ConfigError("no GitHub token: set GITHUB_TOKEN or the github-token input")
        return settings

    def _client(self, settings: ActionSettings) -> Any:
        if not settings.token:
            return None
        from rubricate.github.adapter import GitHubAdapter, connect

        client = (self.connect or connect)(settings.token, settings.api_url)
        return GitHubAdapter(client, settings.repository, bot_login=settings.bot_login)

    def _dry_run(self, effects: list[Any]) -> int:
        from rubricate.action.executor import apply_local, print_effects

        print_effects(effects, self.stdout, self.runtime)
        for effect in effects:
            apply_local(effect, self.runtime)
        self.runtime.log(f"dry run: {len(effects)} effects printed, nothing written")
        return 0

    def _apply(self, effects: list[Any], prepared: Prepared) -> int:
        from rubricate.action.executor import Executor

        ledger = prepared.ledger
        executor = Executor(
            self.api,
            ledger.store,
            self.runtime,
            ledger.views,
            details_url=self._details_url(),
            review_nodes=self.review_nodes,
        )
        with self.runtime.group("rubricate: apply"):
            outcome = executor.apply(effects)
            views = outcome.views
            if prepared.pull is not None:
                views.pull = prepared.pull
            if encode_views(views) != ledger.views_bytes:
                ledger.store.write_extra(view_path(prepared.context.repo, views.pr), _merged(views))
        outcome.raise_errors()
        return 0

    def _details_url(self) -> str | None:
        settings = self.settings
        if not settings.run_id or not settings.repository:
            return None
        return f"{settings.server_url}/{settings.repository}/actions/runs/{settings.run_id}"

    def _failed(self, exc: BaseException) -> int:
        code = exc.exit_code if isinstance(exc, RubricateError) else 1
        lines = [str(d) for d in exc.diagnostics] if isinstance(exc, SourceError) else [str(exc)]
        reason = self.runtime.redact("\n".join(lines) or type(exc).__name__)
        for line in lines:
            self.runtime.annotate("error", f"rubricate: {line}")
        if not self.settings.dry_run and self.api is not None:
            self._report_failure(reason, code)
        return code

    def _report_failure(self, reason: str, code: int) -> None:
        """A failing check run with the reason, and 😕 on the comment; best effort."""
        title = "rubricate: configuration error" if code == 2 else "rubricate could not run"
        try:
            if self.head_sha:
                output = {"title": title, "summary": f"{title}.\n\n```\n{reason[:60000]}\n```"}
                self.api.create_check_run(
                    self.head_sha, "rubricate", "failure", output, self._details_url()
                )
            if self.comment_id is not None:
                self.api.react(self.comment_id, "confused")
            for node in self.review_nodes.values():
                self.api.react_to_node(node, "confused")
        except RubricateError as exc:
            self.runtime.annotate("warning", f"could not report the failure on GitHub: {exc}")
