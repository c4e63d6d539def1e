"""The GitHub App's identity: its id and private key, installation tokens refreshed well before
their one-hour expiry, and a PyGithub client per installation and thread, kept while its token
is (shell: network I/O).

The worker reads the App from `RUBRICATE_APP_ID` and `RUBRICATE_APP_PRIVATE_KEY_FILE` (the
`serve` command passes its own when it runs a worker); a bad key file is a clear error at start.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from github import Auth, Github, GithubIntegration
from rubricate.errors import ConfigError, read_problem
from rubricate.github.client import DEFAULT_TIMEOUT_S
from rubricate.serve.budget import BudgetRetry

REFRESH_MARGIN = timedelta(minutes=10)
"""A token is replaced once it has less than this left of its hour."""


@dataclass(frozen=True)
class AppCredentials:
    """The App's id, its private key (PEM) and the API it talks to."""

    app_id: int
    private_key: str
    api_url: str = "https://api.github.com"


def read_credentials(app_id: str, key_file: str, api_url: str) -> AppCredentials:
    """The credentials, checked: a numeric id and a readable PEM private key."""
    if not app_id.strip().isdigit():
        raise ConfigError(f"the App id must be a number, not {app_id!r}")
    try:
        pem = Path(key_file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"--private-key-file {key_file}: {read_problem(exc)}") from None
    if "-----BEGIN" not in pem or "PRIVATE KEY-----" not in pem:
        raise ConfigError(f"--private-key-file {key_file}: not a PEM private key")
    try:
        Auth.AppAuth(int(app_id), pem).create_jwt()
    except Exception as exc:  # cryptography's errors differ by version: any failure is a bad key
        reason = f"cannot sign with it ({type(exc).__name__})"
        raise ConfigError(f"--private-key-file {key_file}: {reason}") from None
    return AppCredentials(int(app_id), pem, api_url.rstrip("/"))


def credentials_from_env(env: Mapping[str, str]) -> AppCredentials:
    """The worker's credentials from its environment."""
    app_id = env.get("RUBRICATE_APP_ID", "")
    key_file = env.get("RUBRICATE_APP_PRIVATE_KEY_FILE", "")
    if not app_id or not key_file:
        raise ConfigError(
            "the worker needs the App: set RUBRICATE_APP_ID and RUBRICATE_APP_PRIVATE_KEY_FILE"
        )
    api_url = env.get("GITHUB_API_URL") or "https://api.github.com"
    return read_credentials(app_id, key_file, api_url)


class InstallationTokens:
    """Installation tokens, one per installation, kept until `REFRESH_MARGIN` before expiry."""

    def __init__(self, credentials: AppCredentials) -> None:
        self.credentials = credentials
        self._tokens: dict[int, tuple[str, datetime]] = {}
        self._lock = threading.Lock()
        self._slug: str | None = None
        self._clients = threading.local()

    def integration(self) -> GithubIntegration:
        """PyGithub's client acting as the App itself (a JWT), not as an installation."""
        creds = self.credentials
        return GithubIntegration(
            auth=Auth.AppAuth(creds.app_id, creds.private_key),
            base_url=creds.api_url,
            timeout=DEFAULT_TIMEOUT_S,
            retry=BudgetRetry(total=2, backoff_factor=0.5),
            lazy=True,
        )

    def token(self, installation: int, now: datetime | None = None) -> str:
        """A token with at least `REFRESH_MARGIN` left."""
        now = now or datetime.now(timezone.utc)
        with self._lock:
            known = self._tokens.get(installation)
            if known is not None and known[1] - now > REFRESH_MARGIN:
                return known[0]
            granted = self.integration().get_access_token(installation)
            expires = granted.expires_at or now + timedelta(hours=1)
            if expires.tzinfo is None:
                expires = expires.replace(tzinfo=timezone.utc)
            self._tokens[installation] = (granted.token, expires)
            return granted.token

    def bot_login(self) -> str:
        """The App's bot account (`<slug>[bot]`), asked of GitHub once."""
        with self._lock:
            if self._slug is None:
                self._slug = str(self.integration().get_app().slug)
            return f"{self._slug}[bot]"

    def client(self, installation: int, now: datetime | None = None) -> Github:
        """A lazy PyGithub client acting as the installation, kept for the thread's next jobs
        of the installation until its token is replaced (so its HTTP connections are kept
        too). One per thread: a PyGithub client sends each request and reads its answer
        through one shared connection object, which two threads would mix up."""
        token = self.token(installation, now)
        kept: dict[int, tuple[str, Github]] = self._clients.__dict__.setdefault("by", {})
        known = kept.get(installation)
        if known is not None and known[0] == token:
            return known[1]
        github = self._new_client(token)
        kept[installation] = (token, github)
        return github

    def _new_client(self, token: str) -> Github:
        creds = self.credentials
        # No spacing by PyGithub: it sleeps in the job's thread, per client. The installation's
        # writes are paced across every worker by `rubricate.serve.write_pace` instead.
        return Github(
            auth=Auth.Token(token),
            base_url=creds.api_url,
            timeout=DEFAULT_TIMEOUT_S,
            retry=BudgetRetry(total=2, backoff_factor=0.5),
            lazy=True,
            user_agent="rubricate",
            seconds_between_requests=None,
            seconds_between_writes=None,
        )
