"""The PR's commits and the rules read at them (shell: API and git reads): where the base and
head are when the payload does not say, fetching them into a private bare repository, the commit
the config and rubric are read at, and reading them there.

See DESIGN.md for why config and rubric come from the default branch and why PR content is
read, never checked out or run. Each read says in the log what it did; a dry run without a
token reads neither the API nor GitHub's git remote.
"""

from __future__ import annotations

from rubricate.action.handles import RunHandles
from rubricate.action.settings import DEFAULT_CONFIG_PATH
from rubricate.bot.events import JobEvent, PullRequestEvent
from rubricate.bot.view_state import PullState
from rubricate.config import Config
from rubricate.errors import ConfigError, RubricateError
from rubricate.gitio.refs import config_at, read_text_at
from rubricate.gitio.workspace import fetch_branch, fetch_commits
from rubricate.gitnames import ref_problem
from rubricate.rubric.loader import find_rubric
from rubricate.rubric.model import Rubric
from rubricate.rubric_sources import allowed_env, builtin_rubrics, local_reader


def pull_from_api(handles: RunHandles, number: int) -> PullState | None:
    """The PR's base and head from the REST API (one call), when a client is available."""
    if handles.api is None:
        return None
    data = handles.api.pull(number)
    return PullState(
        base_sha=data["base"]["sha"],
        base_ref=data["base"].get("ref", ""),
        head_sha=data["head"]["sha"],
    )


def fetch_pull(
    handles: RunHandles, event: JobEvent, pull: PullState | None
) -> tuple[str | None, bool]:
    """The merge base (None when unknown) and whether the base commit was fetched.

    A merged head that cannot be fetched leaves its tree unknown, but the base must still be
    read: a config that cannot be read fails the run, never falls back to the defaults.
    """
    is_pr = isinstance(event, PullRequestEvent)
    if pull is None:
        handles.runtime.log("the PR's base is unknown (no token): using the default config")
        return None, False
    try:
        merge_base = fetch(handles, pull, with_head=is_pr)
    except RubricateError:
        if not (is_pr and event.action == "closed"):  # type: ignore[union-attr]
            raise
        handles.runtime.annotate("warning", "could not fetch the merged head: its tree is unknown")
        fetch(handles, pull, with_head=False)
        return None, True
    return merge_base, merge_base is not None


def fetch(handles: RunHandles, pull: PullState, *, with_head: bool) -> str | None:
    """Fetch the base (and head) commits; return the merge base, or None when git is off."""
    if not handles.git_allowed:
        return None
    remote, token = handles.settings.repo_remote, handles.settings.token
    head = pull.head_sha if with_head else pull.base_sha
    with handles.runtime.group("rubricate: fetch the PR's commits"):
        merge_base = fetch_commits(remote, pull.base_sha, head, handles.repo_dir, token=token)
        handles.runtime.log(f"fetched base {pull.base_sha[:12]} and head {head[:12]} (read only)")
    return merge_base


def config_commit(
    handles: RunHandles,
    pull: PullState,
    default_branch: str | None,
    base_fetched: bool,
    *,
    tip: bool = False,
) -> str | None:
    """The commit to read config and rubric at: the base when it is the default branch (or the
    default branch is unknown), else the default branch's tip, fetched once.

    With `tip`, the default branch's tip whatever the base: a command is judged by the rules
    the default branch holds now, never by those of the commit a PR was last pushed on (rules
    tightened since then apply to every open PR)."""
    if not base_fetched:
        return None
    if default_branch is None or (pull.base_ref in ("", default_branch) and not tip):
        return pull.base_sha
    if ref_problem(default_branch) is not None:
        raise ConfigError(f"the repository's default branch {default_branch!r} is not a branch")
    remote, token = handles.settings.repo_remote, handles.settings.token
    sha = fetch_branch(remote, default_branch, handles.repo_dir, token=token)
    why = "a command" if tip else f"base {pull.base_ref} is not the default branch"
    handles.runtime.log(f"{why}: config read on {default_branch} at {sha[:12]}")
    return sha


def read_config(handles: RunHandles, at: str | None) -> Config:
    """The config at the config commit; the defaults when it is absent or git is off."""
    path = handles.settings.config_path
    config = None
    if at is not None:
        config = config_at(handles.repo_dir, at, path, "at the base commit")
    if config is None:
        where = f"at base {at[:12]}" if at else "(no git reads)"
        message = f"no {path} {where}: using the default config"
        if at and path != DEFAULT_CONFIG_PATH:  # a `config` input that names nothing
            handles.runtime.annotate("warning", f"rubricate: {message} (the `config` input)")
        else:
            handles.runtime.log(message)
        return Config()
    return config


def read_rubric(handles: RunHandles, at: str | None, config: Config) -> Rubric:
    """The rubric named by the `rubric` input or the config, read at the config commit."""
    settings = handles.settings
    ref = settings.rubric or config.rubric
    env = allowed_env(config.agentv.env)

    if at is None:
        handles.runtime.log(f"rubric {ref}: read without git (built-in or local file)")
        return find_rubric(ref, local_reader(handles.repo_dir), builtin_rubrics(), env)

    def at_commit(path: str) -> str:
        text = read_text_at(handles.repo_dir, at, path, "at the base commit")
        if text is None:
            raise FileNotFoundError(path)
        return text

    try:
        return find_rubric(ref, at_commit, builtin_rubrics(), env)
    except ConfigError as exc:
        named_by = "the `rubric` input" if settings.rubric else settings.config_path
        raise ConfigError(f"{exc} (named by {named_by})") from None
