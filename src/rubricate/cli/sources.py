"""Where a ledger command reads and writes: `--remote`, `--data` or `--database-url`, the scope,
the ledger key and the reputation config (shell: CLI)."""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit

from rubricate.cli.text_input import read_text
from rubricate.errors import ConfigError
from rubricate.gitio.run import run_git
from rubricate.gitio.workspace import is_url
from rubricate.gitnames import ref_problem
from rubricate.ledger.backends import DataBranchStore, DirectoryStore
from rubricate.ledger.event import Event
from rubricate.ledger.pg_store import PostgresStore, Scope
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.ledger.store import LedgerStore
from rubricate.ledger.trust import KEY_ENV, parse_key

TOKEN_ENV = "RUBRICATE_DATA_TOKEN"


def add_scope_arguments(parser: argparse.ArgumentParser, repo: bool = True) -> None:
    """`--org ORG` or `--repo OWNER/NAME`: which events to read (all of them by default)."""
    scope = parser.add_mutually_exclusive_group() if repo else parser
    scope.add_argument("--org", metavar="ORG", help="only this organisation's repositories")
    if repo:
        scope.add_argument("--repo", metavar="OWNER/NAME", help="only this repository")


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    """`--remote URL | --data DIR`, `--branch` and `--config`."""
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--remote", help="git URL or local path of the repository holding the data branch"
    )
    source.add_argument(
        "--data", metavar="DIR", help="a plain directory holding a checkout of the data branch"
    )
    source.add_argument(
        "--database-url", metavar="URL", help="a PostgreSQL ledger (rubricate[server])"
    )
    parser.add_argument(
        "--branch", default="rubricate-data", help="the data branch (default: %(default)s)"
    )
    parser.add_argument(
        "--config",
        metavar="PATH",
        help="a rubricate.yml whose `reputation:` to use (default: the one recorded on the branch)",
    )


def open_store(args: argparse.Namespace) -> DataBranchStore | DirectoryStore | PostgresStore:
    """The store named by `--remote`, `--data` or `--database-url`; a bad `--remote` or
    `--branch` is an error."""
    config = load_reputation_config(args.config)
    key = ledger_key()
    if getattr(args, "database_url", None) is not None:
        scope = Scope(getattr(args, "org", None), getattr(args, "repo", None))
        return PostgresStore(args.database_url, config=config, key=key, scope=scope)
    if args.data is not None:
        return DirectoryStore(args.data, config=config, key=key)
    check_remote(args.remote)
    check_branch(args.branch)
    token = token_for(args.remote)
    return DataBranchStore(args.remote, args.branch, token=token, config=config, key=key)


def in_scope(events: Iterable[Event], args: argparse.Namespace) -> list[Event]:
    """The events of `--repo` or `--org` (all without either)."""
    repo, org = getattr(args, "repo", None), getattr(args, "org", None)
    if repo is not None:
        return [e for e in events if e.repo == repo]
    if org is not None:
        return [e for e in events if e.repo.split("/", 1)[0] == org]
    return list(events)


def ledger_key() -> bytes | None:
    """The ledger key from `RUBRICATE_LEDGER_KEY` (None when unset); a short key is an error."""
    try:
        return parse_key(os.environ.get(KEY_ENV))
    except ValueError as exc:
        raise ConfigError(f"{KEY_ENV}: {exc}") from None


def check_remote(remote: str) -> None:
    """A `--remote` that is a local path must be a git repository (URLs are tried as they are)."""
    if not remote.strip():
        raise ConfigError("--remote is empty: give a git URL or the path of a git repository")
    if is_url(remote):
        return
    path = Path(remote).expanduser()
    if not path.exists():
        raise ConfigError(f"--remote {remote}: no such directory")
    if not path.is_dir():
        raise ConfigError(f"--remote {remote}: not a directory, so not a git repository")
    if is_repository(path) or is_repository(path / ".git"):
        return
    if run_git(["ls-remote", "--heads", str(path.resolve())], check=False).returncode != 0:
        raise ConfigError(f"--remote {remote}: not a git repository")


_HEAD = re.compile(r"ref: refs/\S+\n?|[0-9a-f]{40}(?:[0-9a-f]{24})?\n?")


def is_repository(gitdir: Path) -> bool:
    """True for a git directory as git itself tells one (`HEAD` naming a ref or a commit, with
    `objects/` and `refs/`): a path that is one, or whose `.git` is one, needs no `git ls-remote`
    to say so. Anything else (`NAME` for `NAME.git`, a `.git` file, a `HEAD` that is no plain
    file, a repository format or extension git may refuse) is left to git."""
    try:
        if not (gitdir / "HEAD").is_file():
            return False
        with (gitdir / "HEAD").open("rb") as file:
            head = file.read(_HEAD_BYTES).decode("utf-8")
        with (gitdir / "config").open("rb") as file:
            config = file.read(_CONFIG_BYTES).decode("utf-8").lower()
    except (OSError, UnicodeDecodeError):
        return False
    plain = "extensions" not in config and _NEWER_FORMAT.search(config) is None
    found = (gitdir / "objects").is_dir() and (gitdir / "refs").is_dir()
    return plain and found and _HEAD.fullmatch(head) is not None


_HEAD_BYTES, _CONFIG_BYTES = 256, 65536
_NEWER_FORMAT = re.compile(r"repositoryformatversion\s*=\s*(?![01]\b)\S")


def check_branch(branch: str) -> None:
    """`--branch` must be a name git accepts for a branch."""
    problem = ref_problem(branch)
    if problem is not None:
        raise ConfigError(f"--branch {branch!r} is not a valid branch name: {problem}")


def require_branch(store: LedgerStore | PostgresStore, args: argparse.Namespace) -> None:
    """Reading commands refuse a data branch that does not exist (a typo would show nothing)."""
    if store.branch_found is False:
        raise ConfigError(
            f"no branch {args.branch!r} in {args.remote}: nothing was appended yet, "
            "or --branch names another branch"
        )


def token_for(remote: str) -> str | None:
    """`RUBRICATE_DATA_TOKEN`, else `GITHUB_TOKEN` when the remote is on the GitHub server."""
    if os.environ.get(TOKEN_ENV):
        return os.environ[TOKEN_ENV]
    server = urlsplit(os.environ.get("GITHUB_SERVER_URL", "https://github.com")).hostname
    if urlsplit(remote).hostname == server and os.environ.get("GITHUB_TOKEN"):
        return os.environ["GITHUB_TOKEN"]
    return None


def load_reputation_config(path: str | None) -> ReputationConfig | None:
    """The `reputation:` section of a config file, or None without `--config`."""
    if path is None:
        return None
    # The config file's models, pydantic and PyYAML: only a command given --config loads them.
    from rubricate.config import load_config

    return load_config(read_text(path, "--config"), path).reputation
