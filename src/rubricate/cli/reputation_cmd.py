"""`rubricate reputation`: read (or recompute) reputation.json (shell: CLI)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from rubricate.cli.ledger_cmd import add_source_arguments, open_store

if TYPE_CHECKING:
    from rubricate.config import ReputationConfig


def add_parser(subparsers: Any) -> None:
    """Register `reputation`."""
    parser = subparsers.add_parser("reputation", help="show each author's reputation")
    add_source_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--author", metavar="LOGIN", help="only this author")
    parser.add_argument(
        "--recompute",
        action="store_true",
        help="fold the ledger again and report any difference from reputation.json (exit 1 if any)",
    )
    parser.set_defaults(handler=run_reputation)


def run_reputation(args: argparse.Namespace) -> int:
    """Print reputation.json (a table, or JSON); with --recompute, compare it with a fresh fold."""
    from rubricate.errors import RubricateError
    from rubricate.ledger.codec import is_shard
    from rubricate.ledger.derive import REPUTATION_PATH, is_derived

    with open_store(args) as store:
        files = store.read_files(lambda p: is_derived(p) or (args.recompute and is_shard(p)))
    if store.branch_found is False:
        raise RubricateError(
            f"no readable reputation.json on the data branch: there is no branch {args.branch!r} "
            f"in {args.remote} (nothing was appended yet, or --branch names another branch)"
        )
    stored = _document(files.get(REPUTATION_PATH))
    if args.recompute:
        return _recompute(files, stored, store.config, args)
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
    config: ReputationConfig | None,
    args: argparse.Namespace,
) -> int:
    from rubricate.ledger.derive import REPUTATION_PATH
    from rubricate.ledger.verify import json_differences, verify_files

    report = verify_files(files, config)
    fresh = json.loads(report.expected[REPUTATION_PATH])
    differences = json_differences(stored or {}, fresh)
    _print(fresh, args)
    notes = sys.stderr if args.json else sys.stdout
    for line in differences:
        print(f"differs: {line}", file=notes)
    summary = f"{len(differences)} difference(s)" if differences else "matches the ledger"
    print(f"reputation.json {summary}", file=notes)
    return 1 if differences else 0


def _document(data: bytes | None) -> dict[str, Any] | None:
    """The stored reputation.json, or None when it is absent or not shaped like one."""
    from rubricate.ledger.verify import reputation_text

    try:
        loaded = json.loads(data) if data is not None else None
        if not isinstance(loaded, dict) or not isinstance(loaded.get("repos"), dict):
            return None
        reputation_text(loaded)  # every entry the views read is there
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None
    return loaded


def _print(document: dict[str, Any], args: argparse.Namespace) -> None:
    from rubricate.ledger.verify import check_author, only_author, reputation_text

    if args.author is not None:
        check_author(document, args.author)
    if args.json:
        print(json.dumps(only_author(document, args.author), indent=2, sort_keys=True))
    else:
        print(reputation_text(document, args.author))
