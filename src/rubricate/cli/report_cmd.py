"""`rubricate reputation` (read or recompute reputation.json) and `rubricate report` (the
reputation dashboard and calibration report) (shell: CLI)."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rubricate.bulk import kept_to_the_end
from rubricate.cli.report_checks import require_extra, require_ledger_folder
from rubricate.cli.sources import (
    add_scope_arguments,
    add_source_arguments,
    in_scope,
    load_reputation_config,
    open_store,
    require_branch,
)
from rubricate.errors import ConfigError, LedgerError, RubricateError, RunFailed, read_problem
from rubricate.ledger.codec import ParsedLedger, decode_shard, is_shard
from rubricate.ledger.event import same_login
from rubricate.ledger.paths import CACHE_PATH, REPUTATION_PATH, is_derived
from rubricate.ledger.pg_store import PostgresStore
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.ledger.snapshot import FoldSnapshot, fold_snapshot
from rubricate.ledger.store import LedgerStore
from rubricate.ledger.trust import key_id
from rubricate.ledger.verify import (
    check_author,
    corrupt_lines,
    json_differences,
    only_author,
    recorded_config,
    reputation_text,
    verify_files,
)
from rubricate.report.demo import demo_shards
from rubricate.report.pool import cached_in_parallel, parse_in_parallel
from rubricate.suggest import did_you_mean

if TYPE_CHECKING:  # numpy and pygal: see `run_report`
    from rubricate.report.model import Sources
    from rubricate.report.refresh import Kept
    from rubricate.report.reuse import State
    from rubricate.report.workers import AuthorPages

FORMATS = ("html", "markdown", "json")
GITHUB = "https://github.com"


def add_parser(subparsers: Any) -> None:
    """Register `report`."""
    parser = subparsers.add_parser(
        "report", help="write the reputation dashboard and calibration report"
    )
    add_source_arguments(parser)
    source = parser._mutually_exclusive_groups[-1]  # --remote | --data
    source.add_argument(
        "--demo",
        nargs="?",
        const=1,
        type=int,
        metavar="SEED",
        help="draw the report from a made-up ledger (2,000+ events, 72 authors) to see what it "
        "shows; SEED picks another one (default: 1)",
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        default="rubricate-report",
        help="output folder (default: %(default)s)",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="html",
        help="html site, markdown summary or json (default: %(default)s)",
    )
    parser.add_argument(
        "--since", metavar="DAYS", type=_days, help="only jobs active in the last DAYS days"
    )
    parser.add_argument("--author", metavar="LOGIN", help="only this author's jobs")
    add_scope_arguments(parser)
    parser.add_argument(
        "--full",
        action="store_true",
        help="read every ledger line and draw every page again, instead of reusing what the "
        "last report in --out kept of the jobs that did not change",
    )
    parser.set_defaults(handler=run_report)


def run_report(args: argparse.Namespace) -> int:
    """Read the ledger, build the report and write it in the chosen format."""
    require_extra(args.format)
    # numpy and pygal (the optional extra) load only now that `require_extra` found them; the
    # markdown and json formats never load pygal, `rubricate reputation` neither.
    if args.data is not None:
        require_ledger_folder(Path(args.data))
    progress = _progress(sys.stderr.isatty())
    out = _out_folder(Path(args.out), with_authors=args.format == "html")
    # the store stays open to the end: the report reads changed jobs' files through it
    with _opened(args) as store:
        _write_report(args, store, out, progress)
    return 0


@contextmanager
def _opened(args: argparse.Namespace) -> Iterator[LedgerStore | PostgresStore | None]:
    """The store the report reads (None for `--demo`), open until the report is written."""
    if args.demo is not None:
        yield None
        return
    with open_store(args) as store:
        yield store


def _write_report(
    args: argparse.Namespace, store: LedgerStore | PostgresStore | None, out: Path, progress: Any
) -> None:
    """Read the ledger through `store`, build the report and write it to `out`."""
    from rubricate.report.files import write_json, write_markdown
    from rubricate.report.reuse import State, save_state

    with kept_to_the_end():  # everything read here: no collection goes over it
        ledger = _read(args, out, store)
    pages = None
    if args.format == "html":
        from rubricate.report.workers import AuthorPages  # pygal: only the site draws charts

        state = ledger.state
        pages = AuthorPages(
            out,
            previous=state.pages if state else None,
            context=state.context if state else "",
        )
    try:  # the author pages are drawn in the background as soon as their part is known
        report, kept = _build(args, ledger, progress, pages)
        try:
            if pages is not None:
                from rubricate.report.site import write_site  # pygal, as above

                memo = kept.memo if kept is not None else None
                written = write_site(report, out, progress, pages=pages, memo=memo)
                message = f"wrote {len(written)} files to {out}/ (open {out / 'index.html'})"
            elif args.format == "markdown":
                message = f"wrote {write_markdown(report, out)}"
            else:
                message = f"wrote {write_json(report, out / 'report.json')}"
            if kept is not None and ledger.inputs is not None:
                drawn = pages.drawn if pages is not None else {}
                context = pages.context if pages is not None else ""
                save_state(out, ledger.inputs, State(kept, drawn, context))
        except OSError as exc:
            raise RunFailed(f"writing the report to {out}/ failed: {read_problem(exc)}") from None
        progress("")
        if sys.stderr.isatty():
            print(file=sys.stderr)
        print(message)
    finally:
        if pages is not None:
            pages.close()


def _out_folder(out: Path, with_authors: bool) -> Path:
    """The output folder (and its `authors/`), made now: a path that cannot be one is refused
    before any work."""
    for folder in (out, out / "authors") if with_authors else (out,):
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            reason = "a file is there" if folder.is_file() else read_problem(exc)
            raise ConfigError(f"--out {out}: {folder} cannot be made a folder ({reason})") from None
    return out


@dataclass(frozen=True)
class _Ledger:
    """The ledger as read for a report: parsed in full, or its fold cache (`snapshot`) with
    what the last report kept (`state`), made for `inputs`."""

    config: ReputationConfig
    parsed: ParsedLedger | None = None
    snapshot: FoldSnapshot | None = None
    state: State | None = None
    inputs: str | None = None
    reputation: dict[str, Any] | None = None
    """reputation.json's `repos` when it is what the report would fold (`recorded_reputation`)."""
    cached: tuple[Sources, Kept] | None = None
    """A first report's sources, made from the fold cache and the job files (`cached`)."""


def _read(
    args: argparse.Namespace, out: Path, store: LedgerStore | PostgresStore | None
) -> _Ledger:
    from rubricate.report.refresh import recorded_reputation  # numpy, as in `run_report`
    from rubricate.report.reuse import state_inputs, take_state

    if store is None:
        demo = load_reputation_config(args.config) or ReputationConfig()
        return _Ledger(demo, _scoped(parse_in_parallel(demo_shards(args.demo)), args))
    if isinstance(store, PostgresStore):  # its --org or --repo only, each line parsed once
        config = store.config or ReputationConfig()  # (what its derived files record)
        return _Ledger(config, parse_in_parallel(store.shard_texts(), key=store.key))
    tip = store.backend.tip()
    require_branch(store, args)
    recorded_paths = [p for p in (CACHE_PATH, REPUTATION_PATH) if p in tip.tree]
    shown = [p for p in recorded_paths if p != CACHE_PATH]  # (fetched with the fold cache)
    snapshot = fold_snapshot(tip.tree, tip.read, store.key, tip.fetch, shown)
    recorded = tip.read(recorded_paths)
    config = store.config or recorded_config(recorded) or ReputationConfig()
    inputs = state_inputs(config, key_id(store.key)) if snapshot is not None else None
    whole = args.org is None and args.repo is None  # a state is kept of whole reports only
    state = None
    if inputs is not None and not args.full:
        state, why = take_state(out, inputs)
        if state is None and why and whole:
            print(f"rubricate: {why}: reading the whole ledger", file=sys.stderr)
    folded = None
    if snapshot is not None and whole:
        folded = recorded_reputation(recorded.get(REPUTATION_PATH), config)
    if snapshot is not None and state is not None and whole:
        return _Ledger(config, None, snapshot, state, inputs, folded)
    # Each shard's bytes are let go as soon as they are decoded: the ledger is held once.
    texts = {p: decode_shard(d) for p, d in tip.read(sorted(filter(is_shard, tip.tree))).items()}
    if snapshot is not None and whole and not args.full:  # no line checked again
        try:
            made = cached_in_parallel(snapshot.cache, texts, config, store.key)
            return _Ledger(config, None, snapshot, None, inputs, folded, made)
        except LedgerError as exc:
            print(f"rubricate: {exc}: reading the whole ledger", file=sys.stderr)
    parsed = _scoped(parse_in_parallel(texts, key=store.key), args)
    if not whole:  # nothing of a scope's report is kept for the next one
        snapshot, inputs = None, None
    return _Ledger(config, parsed, snapshot, None, inputs, folded)


def _scoped(parsed: ParsedLedger, args: argparse.Namespace) -> ParsedLedger:
    """The events of `--org` or `--repo` (all without either)."""
    if args.org is None and args.repo is None:
        return parsed
    return replace(parsed, events=tuple(in_scope(parsed.events, args)))


def _build(
    args: argparse.Namespace, ledger: _Ledger, progress: Any, pages: AuthorPages | None
) -> tuple[dict[str, Any], Kept | None]:
    """The report document, and what to keep of it for the next report (None: nothing); the
    author `pages` are started as their parts are known."""
    from rubricate.report.model import Options, assemble, parsed_sources  # numpy, as above
    from rubricate.report.refresh import first_kept, kept_as_made, refreshed

    progress("reading the ledger")
    with kept_to_the_end():  # everything built here: no collection goes over it
        kept: Kept | None = None
        if ledger.cached is not None:
            sources, kept = ledger.cached
            _print_corrupt(sources)
        elif ledger.snapshot is not None and ledger.state is not None:
            sources, kept, stale = refreshed(ledger.snapshot, ledger.state.kept, ledger.config)
            if pages is not None:
                pages.keep_unless(stale)
            _print_corrupt(sources)
        else:
            parsed = ledger.parsed or ParsedLedger()
            for line in corrupt_lines(parsed):
                print(line, file=sys.stderr)
            sources = parsed_sources(parsed, ledger.config, args.author)
        if args.author is not None:
            _check_author(args.author, {facts.author for facts in sources.facts.values()})
        progress(f"folding {sources.ledger.events:,} events")
        series = sources.series
        if kept is None and ledger.snapshot is not None:  # kept for the next report
            files = {k: job.file_id for k, job in ledger.snapshot.cache.jobs.items()}
            recorded: dict[Any, Any] = {}
            kept = first_kept(files, sources.parts, recorded, sources.memo)
            sources = replace(sources, parts=kept.parts, tally=kept.tally, totals=kept.totals)
            series = kept_as_made(series, recorded)
        # a made-up ledger's pull requests are nowhere: their numbers link nowhere
        server = "" if args.demo is not None else os.environ.get("GITHUB_SERVER_URL", GITHUB)
        options = Options(_now(), since_days=args.since, author=args.author, server_url=server)
        authors = 0

        def ready(part: dict[str, Any]) -> None:
            nonlocal authors
            if pages is not None:
                pages.start(part)
            authors += len(part["authors"])
            progress(f"reputation over time: {authors:,} authors")

        whole = replace(sources, series=series, reputation=ledger.reputation)
        report = assemble(whole, ledger.config, options, ready)
    return report, kept


def _print_corrupt(sources: Sources) -> None:
    """The corrupt lines, as the fold cache locates them (on stderr)."""
    for line in sources.ledger.problems[: sources.ledger.corrupt]:
        print(line, file=sys.stderr)


def _now() -> datetime:
    """Now, or `SOURCE_DATE_EPOCH` when it is set (a report made again is then the same)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    try:
        return datetime.fromtimestamp(int(epoch), timezone.utc) if epoch else _clock()
    except (ValueError, OverflowError, OSError):
        raise ConfigError(f"SOURCE_DATE_EPOCH={epoch!r} is not a time in seconds") from None


def _clock() -> datetime:
    return datetime.now(timezone.utc)


def _check_author(author: str, logins: set[str]) -> None:
    """Refuse an author with no job in the ledger (a typo would publish an empty report)."""
    if not any(same_login(login, author) for login in logins):
        count = f"{len(logins):,} author(s)" if logins else "no events yet"
        hint = did_you_mean(author, sorted(logins))
        raise ConfigError(f"--author {author!r}: no job of theirs in the ledger{hint} ({count})")


def _progress(enabled: bool) -> Any:
    started = time.perf_counter()

    def report(step: str) -> None:
        if enabled:
            print(
                f"\r\033[K[{time.perf_counter() - started:5.1f}s] {step}",
                end="",
                file=sys.stderr,
                flush=True,
            )

    return report


def _days(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of days") from None
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError("--since must be a positive number of days")
    return value


def add_reputation_parser(subparsers: Any) -> None:
    """Register `reputation`."""
    parser = subparsers.add_parser("reputation", help="show each author's reputation")
    add_source_arguments(parser)
    add_scope_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--author", metavar="LOGIN", help="only this author")
    parser.add_argument(
        "--sort",
        choices=("ranked", "reputation", "author"),
        default="ranked",
        help="the table's order: ranked or reputation, high to low, or by repository and author "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--recompute",
        action="store_true",
        help="fold the ledger again and report any difference from reputation.json (exit 1 if any)",
    )
    parser.set_defaults(handler=run_reputation)


def run_reputation(args: argparse.Namespace) -> int:
    """Print reputation.json (a table, or JSON); with --recompute, compare it with a fresh fold."""

    with open_store(args) as store:
        view = store.reputation() if isinstance(store, PostgresStore) else None
        if view is not None and not args.recompute:
            _print(view, args)
            return 0
        files = store.read_files(lambda p: is_derived(p) or (args.recompute and is_shard(p)))
    if store.branch_found is False:
        raise RubricateError(
            f"no readable reputation.json on the data branch: there is no branch {args.branch!r} "
            f"in {args.remote} (nothing was appended yet, or --branch names another branch)"
        )
    stored = view or _document(files.get(REPUTATION_PATH))
    if args.recompute:
        return _recompute(files, stored, store, args)
    if stored is None:
        raise RubricateError(
            "no readable reputation.json on the data branch (append an event, rebuild it with "
            "`rubricate ledger verify --fix`, or use --recompute)"
        )
    _print(stored, args)
    return 0


def _recompute(
    files: dict[str, bytes],
    stored: dict[str, Any] | None,
    store: LedgerStore | PostgresStore,
    args: argparse.Namespace,
) -> int:

    report = verify_files(files, store.config, store.key)
    fresh = json.loads(report.expected[REPUTATION_PATH])
    differences = json_differences(stored or {}, fresh)
    _print(fresh, args)
    notes = sys.stderr if args.json else sys.stdout
    for line in corrupt_lines(report.parsed):
        print(line, file=notes)
    for line in differences:
        print(f"differs: {line}", file=notes)
    summary = f"{len(differences)} difference(s)" if differences else "matches the ledger"
    print(f"reputation.json {summary}", file=notes)
    return 1 if differences else 0


def _document(data: bytes | None) -> dict[str, Any] | None:
    """The stored reputation.json, or None when it is absent or not shaped like one."""

    try:
        loaded = json.loads(data) if data is not None else None
        if not isinstance(loaded, dict) or not isinstance(loaded.get("repos"), dict):
            return None
        reputation_text(loaded)  # every entry the views read is there
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None
    return loaded


def _print(document: dict[str, Any], args: argparse.Namespace) -> None:

    repo, org = getattr(args, "repo", None), getattr(args, "org", None)
    if repo is not None or org is not None:
        repos = document["repos"].items()
        kept = {r: e for r, e in repos if r == repo or r.split("/", 1)[0] == org}
        document = {**document, "repos": kept}
    if args.author is not None:
        check_author(document, args.author)
    if args.json:
        print(json.dumps(only_author(document, args.author), indent=2, sort_keys=True))
    else:
        print(reputation_text(document, args.author, args.sort))
