"""`rubricate ledger append|verify|show`: the ledger on a data branch (shell: CLI)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from rubricate.bulk import bulk
from rubricate.cli.sources import (
    add_scope_arguments,
    add_source_arguments,
    in_scope,
    open_store,
    require_branch,
    token_for,
)
from rubricate.cli.text_input import read_lines
from rubricate.errors import ConfigError, LedgerError
from rubricate.ledger.backends import IDENTITY, DataBranchStore
from rubricate.ledger.codec import event_from_dict, is_shard
from rubricate.ledger.fold import event_order
from rubricate.ledger.paths import is_derived
from rubricate.ledger.pg_schema import database_errors
from rubricate.ledger.store import Fix, LedgerStore
from rubricate.ledger.trust import KEY_ENV
from rubricate.ledger.verify import VerifyReport, event_rows, job_text, select_job, verify_files
from rubricate.redaction import env_secrets, redact

if TYPE_CHECKING:
    from rubricate.ledger.backends import DataBranchStore
    from rubricate.ledger.event import Event
    from rubricate.ledger.pg_store import PostgresStore
    from rubricate.ledger.verify import ForeignCommit


def add_parser(subparsers: Any) -> None:
    """Register `ledger` and its three subcommands."""
    parser = subparsers.add_parser("ledger", help="append to, verify or show the ledger")
    commands = parser.add_subparsers(dest="ledger_command", metavar="ACTION", required=True)
    append = commands.add_parser("append", help="append events from a JSONL file (or -)")
    add_source_arguments(append)
    append.add_argument(
        "file", metavar="FILE.jsonl", help="events, one JSON object a line; - for stdin"
    )
    append.add_argument("--json", action="store_true", help="print the result as JSON")
    append.set_defaults(handler=run_append)
    verify = commands.add_parser("verify", help="check schema, ids, shards and derived files")
    add_source_arguments(verify)
    verify.add_argument(
        "--fix",
        action="store_true",
        help="regenerate every derived file from the whole ledger in one commit when any is stale",
    )
    verify.add_argument(
        "--provenance",
        action="store_true",
        help="also list the commits not made by the bot's identity, with the events they added",
    )
    add_scope_arguments(verify)
    verify.set_defaults(handler=run_verify)
    resign = commands.add_parser(
        "resign", help="sign the ledger's unsigned events with RUBRICATE_LEDGER_KEY (once)"
    )
    add_source_arguments(resign)
    resign.set_defaults(handler=run_resign)
    show = commands.add_parser("show", help="list events, or one job with --pr")
    add_source_arguments(show)
    show.add_argument("--pr", type=int, help="show this pull request's job")
    show.add_argument("--repo", help="the repository of --pr, when the ledger holds several")
    show.add_argument("--json", action="store_true", help="print JSON")
    add_scope_arguments(show, repo=False)
    show.set_defaults(handler=run_show)
    export = commands.add_parser(
        "export", help="print every event as canonical JSONL, the same from either backend"
    )
    add_source_arguments(export)
    add_scope_arguments(export)
    export.set_defaults(handler=run_export)
    load = commands.add_parser(
        "import", help="insert events from a JSONL file (or -) into a database"
    )
    load.add_argument("--database-url", required=True, metavar="URL", help="the PostgreSQL ledger")
    load.add_argument(
        "file", metavar="FILE.jsonl", help="events, one JSON object a line; - for stdin"
    )
    load.add_argument("--json", action="store_true", help="print the result as JSON")
    load.set_defaults(handler=run_append, remote=None, data=None, config=None)


def read_events(name: str) -> list[Event]:
    """Validate every line of a JSONL file; any invalid line rejects the whole batch."""
    return list(stream_events(name))


def stream_events(name: str) -> Iterator[Event]:
    """Each event of a JSONL file (or - for stdin) as its line is read; after an invalid line
    none more, and at the end a `LedgerError` listing every invalid line.

    Lines end at "\n" only: U+2028 and other Unicode line breaks may appear inside JSON strings.
    """
    errors = []
    lines = read_lines(name, "events" if name == "-" else "the events file")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event = event_from_dict(json.loads(line, parse_constant=_not_json))
        except ValueError as exc:
            errors.append(f"line {number}: not JSON ({exc})")
        except RecursionError:
            errors.append(f"line {number}: not an event (JSON nested too deeply)")
        except LedgerError as exc:
            errors.append(f"line {number}: {exc}")
        else:
            if not errors:
                yield event
    if errors:
        raise LedgerError("\n".join(errors) + "\nno events were appended")


@bulk
@database_errors()
def run_append(args: argparse.Namespace) -> int:
    """Validate, then append; print how many were added and how many were present. A database
    takes the events as they are read (one transaction: an invalid line adds none)."""
    database = getattr(args, "database_url", None)
    events = stream_events(args.file) if database else read_events(args.file)
    with open_store(args) as store:
        result = store.append(events)
    if args.json:
        print(json.dumps(dataclasses.asdict(result), sort_keys=True))
    else:
        commit = f" in commit {result.commit[:12]}" if result.commit else " (no commit)"
        commit = "" if database else commit
        print(f"added {result.added}, already present {result.present}{commit}")
    return 0


def _checked(path: str) -> bool:
    """The files `verify` reads: the ledger and its derived files."""
    return is_shard(path) or is_derived(path)


def _not_json(constant: str) -> float:
    raise ValueError(f"{constant} is not a JSON number")


def _verify(store: LedgerStore | PostgresStore) -> VerifyReport:
    """A git or directory ledger streams shard by shard; a database gives its lines at once."""
    if isinstance(store, LedgerStore):
        return store.verify()
    return verify_files(store.read_files(_checked), store.config, store.key)


@bulk
@database_errors()
def run_verify(args: argparse.Namespace) -> int:
    """Exit 0 when the ledger and its derived files are clean (after --fix), 1 otherwise."""
    from rubricate.cli.main import Progress

    with open_store(args) as store, Progress() as progress:
        progress.step("reading and checking the ledger")
        fixed = store.fix() if args.fix and isinstance(store, LedgerStore) else None
        report = _verify(store) if fixed is None else fixed.found
        require_branch(store, args)
        if args.fix and report.fixable:
            for line in report.stale:
                progress.say(f"{line} (rebuilt)", sys.stdout)
            if fixed is None:  # a database folds each job again, then is checked again
                progress.step("rebuilding the derived files")
                fixed = Fix(report, store.rebuild(), _verify(store))
            result, report = fixed.result, fixed.report
            where = f"in commit {result.commit[:12]}" if result.commit else "in place"
            progress.say(f"rebuilt the derived files from the whole ledger {where}", sys.stdout)
        foreign = provenance(store) if args.provenance else None
    for line in report.problems:
        print(line)
    verdict = "clean" if report.clean else f"{len(report.problems)} problem(s)"
    print(f"{report.events} events in {len(report.parsed.shards)} shard(s): {verdict}")
    for commit in foreign or []:  # GitHub's words on a commit, masked like an error
        print(redact("\n".join(commit.lines()), env_secrets(os.environ)))
    if foreign is not None:
        print(f"provenance: {len(foreign)} commit(s) not made by {IDENTITY}")
    return 0 if report.clean and not foreign else 1


def provenance(store: LedgerStore | PostgresStore) -> list[ForeignCommit]:
    """The data branch's commits not made by the bot, with GitHub's word on their signatures."""
    from rubricate.github.adapter import commit_verifier

    remote = data_branch(store).remote
    return data_branch(store).foreign_commits(commit_verifier(remote, token_for(remote)))


def data_branch(store: LedgerStore | PostgresStore) -> DataBranchStore:
    """The store as a remote's branch; history needs one (`--remote`, not `--data`)."""
    if not isinstance(store, DataBranchStore):
        raise ConfigError(
            "the branch's commits are read from a remote: use --remote, not --data or "
            "--database-url"
        )
    return store


@bulk
@database_errors()
def run_resign(args: argparse.Namespace) -> int:
    """Sign the events the bot's commits wrote; events that other commits added stay unsigned."""
    with open_store(args) as store:
        if store.key is None:
            raise ConfigError(f"{KEY_ENV} is not set: it is the key to sign the ledger with")
        result, count, left = data_branch(store).resign_own()
        require_branch(store, args)
    where = f"in commit {result.commit[:12]}" if result.commit else "(nothing to write)"
    others = f"{left} line(s) not written by rubricate's commits"
    print(f"signed {count} event(s) {where}; left unsigned: {others}")
    return 0


@bulk
@database_errors()
def run_show(args: argparse.Namespace) -> int:
    """Print the events (or one job) as a table or JSON."""
    with open_store(args) as store:
        parsed = store.read()
        require_branch(store, args)
    if args.pr is not None:
        job = select_job(parsed.events, args.pr, args.repo)
        print(json.dumps(job, indent=2, sort_keys=True) if args.json else job_text(job))
        return 0
    if args.json:
        for event in parsed.events:
            print(event.to_line())
    else:
        print(event_rows(parsed.events))
    for problem in parsed.corrupt:
        print(f"warning: {problem}: corrupt line skipped", file=sys.stderr)
    return 0


@bulk
@database_errors()
def run_export(args: argparse.Namespace) -> int:
    """Print the scope's events, one canonical line each, in `at` order (ties by id)."""
    with open_store(args) as store:
        parsed = store.read()
        require_branch(store, args)
    for problem in parsed.corrupt:
        print(f"warning: {problem}: corrupt line left out", file=sys.stderr)
    out = sys.stdout
    for event in sorted(in_scope(parsed.events, args), key=event_order):
        out.write(event.to_line() + "\n")
    return 0
