"""The Actions environment read into one typed settings object (pure: reads a given mapping).

Inputs reach the program as `INPUT_<NAME>` variables (the composite action passes them through
`env:`); the standard `GITHUB_*` variables say where the event, the API and the outputs are.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from rubricate.errors import ConfigError
from rubricate.gitnames import is_full_name, ref_problem

if TYPE_CHECKING:
    from rubricate.action.runtime import ActionsRuntime
    from rubricate.bot.events import BotEvent, GradersRun, MergeGroupEvent

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_SERVER_URL = "https://github.com"
DEFAULT_CONFIG_PATH = ".github/rubricate.yml"
DEFAULT_BOT_LOGIN = "github-actions[bot]"
_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0", ""})


@dataclass(frozen=True)
class ActionSettings:
    """Everything `rubricate action` reads from its environment."""

    event_name: str
    event_path: str
    repository: str
    token: str | None
    api_url: str = DEFAULT_API_URL
    server_url: str = DEFAULT_SERVER_URL
    run_id: str = ""
    run_attempt: int = 0
    """`GITHUB_RUN_ATTEMPT` (0 when unknown): on a first attempt nothing of this run exists yet."""
    output_path: str | None = None
    summary_path: str | None = None
    config_path: str = DEFAULT_CONFIG_PATH
    rubric: str | None = None
    data_branch: str | None = None
    openai_api_key: str | None = None
    ledger_key: str | None = None
    openai_base_url: str | None = None
    model: str | None = None
    judge_cache_dir: str | None = None
    dry_run: bool = False
    repo_remote_override: str | None = None
    data_remote_override: str | None = None
    bot_login: str = DEFAULT_BOT_LOGIN

    @property
    def repo_remote(self) -> str:
        """The repository's git remote: `$GITHUB_SERVER_URL/$GITHUB_REPOSITORY.git` by default."""
        if self.repo_remote_override:
            return self.repo_remote_override
        return f"{self.server_url.rstrip('/')}/{self.repository}.git"

    @property
    def data_remote(self) -> str:
        """The git remote holding the data branch: the repository itself by default."""
        return self.data_remote_override or self.repo_remote

    @property
    def secrets(self) -> tuple[str, ...]:
        """Values that must never appear in logs, comments or the ledger."""
        return tuple(s for s in (self.token, self.openai_api_key, self.ledger_key) if s)

    def judge_env(self) -> dict[str, str]:
        """The environment the judge reads its key and server from."""
        env: dict[str, str] = {}
        if self.openai_api_key:
            env["OPENAI_API_KEY"] = self.openai_api_key
        if self.openai_base_url:
            env["OPENAI_BASE_URL"] = self.openai_base_url
        return env

    def with_repository(self, repository: str) -> ActionSettings:
        """A copy naming the repository (used when only the payload names it)."""
        return dataclasses.replace(self, repository=repository)


def settings_from_env(
    env: Mapping[str, str],
    *,
    event_name: str | None = None,
    event_path: str | None = None,
    dry_run: bool = False,
) -> ActionSettings:
    """Read the settings (command-line values win); bad values raise ConfigError."""
    name = event_name or _get(env, "GITHUB_EVENT_NAME")
    path = event_path or _get(env, "GITHUB_EVENT_PATH")
    if not name:
        raise ConfigError("GITHUB_EVENT_NAME is not set; pass --event-name")
    if not path:
        raise ConfigError("GITHUB_EVENT_PATH is not set; pass --event-path")
    repository = _get(env, "GITHUB_REPOSITORY") or ""
    if repository and not is_full_name(repository):
        raise ConfigError(f"GITHUB_REPOSITORY must look like owner/name, not {repository!r}")
    return ActionSettings(
        event_name=name,
        event_path=path,
        repository=repository,
        token=_input(env, "GITHUB-TOKEN") or _get(env, "GITHUB_TOKEN"),
        api_url=_url(env, "GITHUB_API_URL", DEFAULT_API_URL),
        server_url=_url(env, "GITHUB_SERVER_URL", DEFAULT_SERVER_URL),
        run_id=_get(env, "GITHUB_RUN_ID") or "",
        run_attempt=int(attempt)
        if (attempt := _get(env, "GITHUB_RUN_ATTEMPT") or "").isdigit()
        else 0,
        output_path=_get(env, "GITHUB_OUTPUT"),
        summary_path=_get(env, "GITHUB_STEP_SUMMARY"),
        config_path=_input(env, "CONFIG") or DEFAULT_CONFIG_PATH,
        rubric=_input(env, "RUBRIC"),
        data_branch=_branch(_input(env, "DATA-BRANCH")),
        openai_api_key=_input(env, "OPENAI-API-KEY") or _get(env, "OPENAI_API_KEY"),
        ledger_key=_input(env, "LEDGER-KEY") or _get(env, "RUBRICATE_LEDGER_KEY"),
        openai_base_url=_input(env, "OPENAI-BASE-URL") or _get(env, "OPENAI_BASE_URL"),
        model=_input(env, "MODEL"),
        judge_cache_dir=_input(env, "JUDGE-CACHE-DIR") or _get(env, "RUBRICATE_JUDGE_CACHE"),
        dry_run=dry_run or parse_bool(_input(env, "DRY-RUN") or "", "dry-run"),
        repo_remote_override=_get(env, "RUBRICATE_REPO_REMOTE"),
        data_remote_override=_get(env, "RUBRICATE_DATA_REMOTE"),
        bot_login=_get(env, "RUBRICATE_BOT_LOGIN") or DEFAULT_BOT_LOGIN,
    )


def parse_bool(text: str, name: str) -> bool:
    """An Actions boolean input: true/false (also yes/no, on/off, 1/0; empty is false)."""
    value = text.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ConfigError(f"input {name} must be true or false, not {text!r}")


def _get(env: Mapping[str, str], key: str) -> str | None:
    value = env.get(key, "").strip()
    return value or None


def _input(env: Mapping[str, str], name: str) -> str | None:
    """`INPUT_<NAME>` as the runner spells it (upper case, hyphens kept), or with underscores."""
    upper = name.upper()
    return _get(env, f"INPUT_{upper}") or _get(env, f"INPUT_{upper.replace('-', '_')}")


def _url(env: Mapping[str, str], key: str, default: str) -> str:
    value = _get(env, key) or default
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"{key} must be an http(s) URL, not {value!r}")
    return value.rstrip("/")


def _branch(name: str | None) -> str | None:
    """The `data-branch` input, checked like git checks a branch name."""
    problem = None if name is None else ref_problem(name)
    if problem is not None:
        raise ConfigError(f"input data-branch {name!r} is not a valid branch name: {problem}")
    return name


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


def settings_for(
    settings: ActionSettings, event: BotEvent | GradersRun | MergeGroupEvent
) -> ActionSettings:
    """The settings with the event's repository; a real run needs a token."""
    if not settings.repository:
        settings = settings.with_repository(event.repo)
    if not settings.token and not settings.dry_run:
        raise ConfigError("no GitHub token: set GITHUB_TOKEN or the github-token input")
    return settings


def details_url(settings: ActionSettings) -> str | None:
    """The workflow run's page, linked from the check run."""
    if not settings.run_id or not settings.repository:
        return None
    return f"{settings.server_url}/{settings.repository}/actions/runs/{settings.run_id}"


def ledger_key(text: str | None) -> bytes | None:
    """The ledger key of the `ledger-key` input; a key that is too short fails the run."""
    from rubricate.ledger.trust import parse_key

    try:
        return parse_key(text)
    except ValueError as exc:
        raise ConfigError(f"ledger-key: {exc}") from None
