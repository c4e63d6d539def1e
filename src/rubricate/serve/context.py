"""What every worker job shares: the database and its pooled connections, the App's tokens, the
scratch folders and the settings the Action's code reads from its environment (shell)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rubricate.action.settings import ActionSettings, read_ledger_key, settings_from_env
from rubricate.serve.app_auth import InstallationTokens
from rubricate.serve.connections import JobConnections
from rubricate.serve.scratch import ScratchFolders

PASSED_ON = (
    "GITHUB_API_URL",
    "GITHUB_SERVER_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "RUBRICATE_LEDGER_KEY",
    "RUBRICATE_JUDGE_CACHE",
    "RUBRICATE_REPO_REMOTE",
)
"""The worker's environment variables the Action's settings may read (nothing else leaks in)."""


@dataclass
class WorkerContext:
    """The database URL, the App's tokens and the worker's environment."""

    url: str
    tokens: InstallationTokens
    env: Mapping[str, str] = field(default_factory=dict)
    scratch: ScratchFolders = field(default_factory=ScratchFolders)
    """Each job's folder, kept per repository between jobs (its fetched commits with it)."""
    jobs_at_once: int = 4
    """The most jobs the worker runs at once: its pool keeps as many connections."""
    connections: JobConnections = field(init=False)
    """Each job's database connection, kept between jobs."""

    def __post_init__(self) -> None:
        self.connections = JobConnections(self.url, self.jobs_at_once)

    def close(self) -> None:
        """Close the pooled connections."""
        self.connections.close()

    @property
    def ledger_key(self) -> bytes | None:
        """The ledger signing key (`RUBRICATE_LEDGER_KEY`), as the Action reads it."""
        return read_ledger_key(self.env.get("RUBRICATE_LEDGER_KEY"))

    def bot_login(self) -> str:
        """`RUBRICATE_BOT_LOGIN`, else the App's own bot account."""
        return self.env.get("RUBRICATE_BOT_LOGIN") or self.tokens.bot_login()

    def settings(self, event: str, event_path: Path, repo: str, token: str) -> ActionSettings:
        """The Action's settings for one delivery, acting as the App's installation."""
        env = {k: v for k, v in self.env.items() if k in PASSED_ON}
        env.update(
            GITHUB_EVENT_NAME=event,
            GITHUB_EVENT_PATH=str(event_path),
            GITHUB_REPOSITORY=repo,
            GITHUB_TOKEN=token,
            GITHUB_API_URL=self.tokens.credentials.api_url,
            RUBRICATE_BOT_LOGIN=self.bot_login(),
        )
        return settings_from_env(env)
