"""`rubricate report`: the reputation dashboard and calibration report (shell: CLI)."""

from __future__ import annotations

import argparse
import gc
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rubricate.cli.ledger_cmd import add_source_arguments, open_store

FORMATS = ("html", "markdown", "json")


def add_parser(subparsers: Any) -> None:
    """Register `report`."""
    parser = subparsers.add_parser(
        "report", help="write the reputation dashboard and calibration report"
    )
    add_source_arguments(parser)
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
    parser.set_defaults(handler=run_report)


def run_report(args: argparse.Namespace) -> int:
    """Read the ledger, build the report and write it in the chosen format."""
    from rubricate.errors import ConfigError
    from rubricate.ledger.codec import gc_paused

    try:
        from rubricate.report.model import Options, build_report
        from rubricate.report.site import write_json, write_markdown, write_site
    except ImportError as exc:
        raise ConfigError(
            "rubricate report needs the optional extra: "
            f"pip install 'rubricate[report]' ({exc.name} is missing)"
        ) from None
    progress = _progress(sys.stderr.isatty())
    progress("reading the ledger")
    with gc_paused():  # everything read or built here lives to the end: no collection over it
        parsed, config = _read(args)
        for problem in parsed.corrupt:
            print(f"{problem}: corrupt line (kept aside, skipped by the fold)", file=sys.stderr)
        progress(f"folding {len(parsed.events):,} events")
        options = Options(now=datetime.now(timezone.utc), since_days=args.since, author=args.author)
        report = build_report(parsed, config, options)
        gc.freeze()
    out = Path(args.out)
    if args.format == "html":
        written = write_site(report, out, progress)
        progress("")
        if sys.stderr.isatty():
            print(file=sys.stderr)
        print(f"wrote {len(written)} files to {out}/ (open {out / 'index.html'})")
    elif args.format == "markdown":
        print(f"wrote {write_markdown(report, out)}")
    else:
        print(f"wrote {write_json(report, out / 'report.json')}")
    return 0


def _read(args: argparse.Namespace) -> tuple[Any, Any]:
    from rubricate.config import ReputationConfig
    from rubricate.ledger.codec import decode_shard, is_shard, parse_ledger
    from rubricate.ledger.paths import CACHE_PATH, REPUTATION_PATH
    from rubricate.ledger.verify import recorded_config

    with open_store(args) as store:
        files = store.read_files(lambda p: is_shard(p) or p in (CACHE_PATH, REPUTATION_PATH))
    config = store.config or recorded_config(files) or ReputationConfig()
    # Each shard's bytes are let go as soon as they are decoded: the ledger is held once.
    shards = sorted(p for p in files if is_shard(p))
    return parse_ledger({p: decode_shard(files.pop(p)) for p in shards}), config


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
    if not value > 0:
        raise argparse.ArgumentTypeError("--since must be a positive number of days")
    return value
