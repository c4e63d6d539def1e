"""The single reads a handler's inputs are gathered from (shell): the PR's base and head, the
fetched commits, the config, the change, the linked issues and the commenter's role.

Config and rubric come from the repository's default branch: at the PR's base commit when the
PR targets the default branch, else at the default branch's tip, with the `branches:` rules of
the PR's base laid over them. PR content is fetched with git into a private bare repository and
read, never checked out or executed. Each read says in the log what it did, and a dry run
without a token reads neither the API nor GitHub's git remote.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from rubricate.action.settings import DEFAULT_CONFIG_PATH
from rubricate.bot.commands import parse_commands
from rubricate.bot.events import CommentEvent, GradersEvent, JobEvent, PullRequestEvent, ReviewEvent
from rubricate.bot.view_state import PullState
from rubricate.bot.visible import linked_issues, same_repo
from rubricate.config import Config
from rubricate.errors import ConfigError, RoleUnreadable, RubricateError
from rubricate.evidence.snapshot import Snapshot
from rubricate.gitio.workspace import fetch_commits, tree_of

if TYPE_CHECKING:
    from rubricate.action.ports import Reader
    from rubricate.github.adapter import IssueInfo

MAX_LINKED_ISSUES = 3
SCORED_ACTIONS = ("opened", "reopened", "ready_for_review", "synchronize", "edited")


def pull_from_payload(event: JobEvent, payload: Mapping[str, Any]) -> PullState | None:
    """The PR's base and head when the event carries them (PR, review and graders events)."""
    if isinstance(event, PullRequestEvent | GradersEvent):
        return PullState(base_sha=event.base_sha, base_ref=event.base_ref, head_sha=event.head_sha)
    if isinstance(event, ReviewEvent):
        base = payload.get("pull_request", {}).get("base", {})
        if base.get("sha"):
            return PullState(
                base_sha=base["sha"], base_ref=base.get("ref", ""), head_sha=event.head_sha
            )
    return None


def pull_from_api(reader: Reader, number: int) -> PullState | None:
    """The PR's base and head from the REST API (one call), when a client is available."""
    if reader.api is None:
        return None
    data = reader.api.pull(number)
    return PullState(
        base_sha=data["base"]["sha"],
        base_ref=data["base"].get("ref", ""),
        head_sha=data["head"]["sha"],
    )


def fetch_pull(reader: Reader, event: JobEvent, pull: PullState | None) -> tuple[str | None, bool]:
    """The merge base (None when unknown) and whether the base commit was fetched.

    A merged head that cannot be fetched leaves its tree unknown, but the base must still be
    read: a config that cannot be read fails the run, never falls back to the defaults.
    """
    is_pr = isinstance(event, PullRequestEvent)
    if pull is None:
        reader.runtime.log("the PR's base is unknown (no token): using the default config")
        return None, False
    try:
        merge_base = fetch(reader, pull, with_head=is_pr)
    except RubricateError:
        if not (is_pr and event.action == "closed"):  # type: ignore[union-attr]
            raise
        reader.runtime.annotate("warning", "could not fetch the merged head: its tree is unknown")
        fetch(reader, pull, with_head=False)
        return None, True
    return merge_base, merge_base is not None


def default_branch(payload: Mapping[str, Any]) -> str | None:
    """The repository's default branch as the payload names it."""
    repository = payload.get("repository")
    name = repository.get("default_branch") if isinstance(repository, Mapping) else None
    return name if isinstance(name, str) and name else None


def fetch(reader: Reader, pull: PullState, *, with_head: bool) -> str | None:
    """Fetch the base (and head) commits; return the merge base, or None when git is off."""
    if not reader.git_allowed:
        return None
    remote, token = reader.settings.repo_remote, reader.settings.token
    head = pull.head_sha if with_head else pull.base_sha
    with reader.runtime.group("rubricate: fetch the PR's commits"):
        merge_base = fetch_commits(remote, pull.base_sha, head, reader.repo_dir, token=token)
        reader.runtime.log(f"fetched base {pull.base_sha[:12]} and head {head[:12]} (read only)")
    return merge_base


def config_commit(
    reader: Reader, pull: PullState, default_branch: str | None, base_fetched: bool
) -> str | None:
    """The commit to read config and rubric at: the base when it is the default branch (or the
    default branch is unknown), else the default branch's tip, fetched once."""
    from rubricate.gitio.workspace import fetch_branch
    from rubricate.gitnames import ref_problem

    if not base_fetched:
        return None
    if default_branch is None or pull.base_ref in ("", default_branch):
        return pull.base_sha
    if ref_problem(default_branch) is not None:
        raise ConfigError(f"the repository's default branch {default_branch!r} is not a branch")
    remote, token = reader.settings.repo_remote, reader.settings.token
    sha = fetch_branch(remote, default_branch, reader.repo_dir, token=token)
    reader.runtime.log(
        f"base {pull.base_ref} is not the default branch: config read on "
        f"{default_branch} at {sha[:12]}"
    )
    return sha


def read_config(reader: Reader, base_sha: str | None) -> Config:
    """The config at the base commit; the defaults when it is absent or git is off."""
    path = reader.settings.config_path
    config = None
    if base_sha is not None:
        from rubricate.gitio.refs import config_at

        config = config_at(reader.repo_dir, base_sha, path, "at the base commit")
    if config is None:
        where = f"at base {base_sha[:12]}" if base_sha else "(no git reads)"
        message = f"no {path} {where}: using the default config"
        if base_sha and path != DEFAULT_CONFIG_PATH:  # a `config` input that names nothing
            reader.runtime.annotate("warning", f"rubricate: {message} (the `config` input)")
        else:
            reader.runtime.log(message)
        return Config()
    return config


def snapshot(
    reader: Reader, event: PullRequestEvent, merge_base: str | None, spec: str, config: Config
) -> Snapshot:
    """The change from the merge base to the head, with schemas read at the base commit."""
    if merge_base is None:
        reader.runtime.log("no git reads: scoring an empty change built from the payload")
        return Snapshot(
            base_sha=event.base_sha,
            head_sha=event.head_sha,
            repo=event.repo,
            title=event.title,
            body=event.body,
            spec=spec,
        )
    from rubricate.evidence.deliverable_schemas import schema_paths
    from rubricate.evidence.format_check import read_limit
    from rubricate.gitio.read import read_snapshot
    from rubricate.gitio.refs import BaseTree

    snap = read_snapshot(
        reader.repo_dir,
        merge_base,
        event.head_sha,
        title=event.title,
        body=event.body,
        spec=spec,
        read_limit=read_limit(config),
    )
    schemas = BaseTree(reader.repo_dir, event.base_sha)
    for path in schema_paths(config):
        schemas.get(path)
    return dataclasses.replace(snap, base_files=schemas, repo=event.repo)


def head_only(reader: Reader, event: PullRequestEvent, fetched: bool) -> Snapshot | None:
    """A snapshot that only names the head tree (what a closed event needs)."""
    if not fetched:
        return None
    tree = tree_of(reader.repo_dir, event.head_sha)
    return Snapshot(
        base_sha=event.base_sha, head_sha=event.head_sha, head_tree=tree, repo=event.repo
    )


def linked(reader: Reader, event: PullRequestEvent) -> list[IssueInfo]:
    """The issues of this repository the PR body closes (at most three), read through the API.

    Issues of other repositories are logged and ignored: their text and milestones are written
    by people who have no say over this repository, so they set neither the spec nor a deadline.
    """
    found_refs = linked_issues(event.body, event.repo, server_url=reader.settings.server_url)
    refs, elsewhere = same_repo(found_refs, event.repo)
    if elsewhere:
        names = ", ".join(map(str, elsewhere))
        reader.runtime.log(f"linked issues of other repositories ignored (spec, deadline): {names}")
    if not refs:
        return []
    if reader.api is None:
        reader.runtime.log(f"linked issues {', '.join(map(str, refs))} not read (no token)")
        return []
    if len(refs) > MAX_LINKED_ISSUES:
        reader.runtime.log(f"only the first {MAX_LINKED_ISSUES} linked issues are read as the spec")
    found = [reader.api.issue(ref) for ref in refs[:MAX_LINKED_ISSUES]]
    return [info for info in found if info is not None]


def spec_text(issues: list[IssueInfo]) -> str:
    """The spec: each linked issue's title and body."""
    return "\n\n".join(f"# {i.title} ({i.ref})\n\n{i.body}".strip() for i in issues)


def deadline(event: PullRequestEvent, issues: list[IssueInfo], config: Config) -> datetime | None:
    """The PR's milestone due date, else a linked issue's, else creation plus the SLA."""
    if event.milestone_due_on is not None:
        return event.milestone_due_on
    for info in issues:
        if info.milestone_due_on is not None:
            return info.milestone_due_on
    hours = config.reputation.sla_hours
    return event.created_at + timedelta(hours=hours) if hours else None


def actor_role(
    reader: Reader, event: CommentEvent | ReviewEvent, config: Config
) -> tuple[str, str | None]:
    """The commenter's role, asked once, when any command attempt (a mistaken one too) needs
    one, and why it could not be read, when it could not (`none` then; the replies say so)."""
    roles = config.commands.roles
    needs = [c for c in parse_commands(event.body) if roles.get(c.name, "none") != "none"]
    if not needs:
        return "none", None
    if reader.api is None:
        reader.runtime.log(f"role of {event.actor} not read (no token): treated as none")
        return "none", None
    try:
        return reader.api.collaborator_role(event.actor), None
    except RoleUnreadable as exc:
        reader.runtime.annotate("warning", f"rubricate: role of {event.actor} not read: {exc}")
        return "none", str(exc)


def read_text(reader: Reader, base_sha: str | None, path: str) -> str | None:
    if base_sha is None:
        return None
    from rubricate.gitio.refs import read_text_at

    return read_text_at(reader.repo_dir, base_sha, path, "at the base commit")
