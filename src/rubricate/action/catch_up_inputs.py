"""What catch-up reads besides the ledger and the PRs: the config on the default branch, and the
due dates of merged PRs' linked issues (shell: git and REST). `rubricate catch-up` and serve's
reconciler read them alike, so the events they plan for one PR are the same.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from rubricate.bot.visible import linked_issues
from rubricate.config import Config
from rubricate.errors import ConfigError
from rubricate.gitio.refs import config_at
from rubricate.gitio.run import GitError, run_git
from rubricate.gitio.workspace import auth_env
from rubricate.redaction import redact_url

if TYPE_CHECKING:
    from rubricate.github.adapter import GitHubAdapter, PullSummary


def default_branch_config(remote: str, token: str | None, config_path: str) -> Config:
    """The config file as it is on the default branch of `remote`; the built-in defaults when
    it is absent."""
    with tempfile.TemporaryDirectory(prefix="rubricate-catch-up-") as tmp:
        repo = Path(tmp) / "repo.git"
        run_git(["init", "--bare", "--quiet", str(repo)])
        fetch = [
            "fetch",
            "--quiet",
            "--no-tags",
            "--depth",
            "1",
            "--end-of-options",
            remote,
            "HEAD",
        ]
        try:
            run_git(fetch, repo, env=auth_env(remote, token))
        except GitError as exc:
            shown_remote = redact_url(remote, remote, token)
            raise ConfigError(f"cannot read the default branch of {shown_remote}: {exc}") from None
        config = config_at(repo, "FETCH_HEAD", config_path, "on the default branch")
    return config or Config()


def linked_due_dates(
    adapter: GitHubAdapter, pulls: Sequence[PullSummary], server_url: str
) -> dict[int, datetime]:
    """The milestone due date of the first linked issue of each merged PR without a milestone."""
    found: dict[int, datetime] = {}
    for pull in pulls:
        if pull.merged_at is None or pull.milestone_due_on is not None:
            continue
        for ref in linked_issues(pull.body, adapter.repository, server_url=server_url):
            issue = adapter.issue(ref)
            if issue is not None and issue.milestone_due_on is not None:
                found[pull.number] = issue.milestone_due_on
                break
    return found
