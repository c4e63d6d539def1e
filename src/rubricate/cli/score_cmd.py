"""`rubricate score`: score a change in a local git repository, as the bot would (shell: CLI).

Config and schemas come from the BASE ref (`.github/rubricate.yml` there, else defaults;
`--config PATH` reads a local file instead). The rubric is `--rubric`, else the config's: a
built-in name, or a path read at the base ref (a `--rubric` path absent there is read from the
local file system). The PR body is the log of the head commits; `--spec FILE` is the linked
issue. Graders run in a fresh export of the head tree (local mode is trusted) unless
`--no-graders`. The change is scored from the merge-base of `--base` and `--head`, as GitHub
shows a pull request (three-dot); an empty change is a usage error. Exit codes: 0 acceptable
under `--fail-on`, 1 not acceptable, 2 errors (bad input, empty change, missing judge key).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from rubricate.cli.main import Progress
from rubricate.cli.text_input import read_text
from rubricate.config import CONFIG_PATH, Config, load_config
from rubricate.errors import ConfigError, RubricateError
from rubricate.evidence.autoscore import auto_score
from rubricate.evidence.deliverable_schemas import schema_paths
from rubricate.evidence.format_check import read_limit
from rubricate.evidence.graders import grader_payload, skipped_graders
from rubricate.evidence.graders_run import run_graders
from rubricate.evidence.render import render_markdown, render_table
from rubricate.evidence.results import CheckResult, ScoreReport, report_json
from rubricate.evidence.snapshot import Snapshot
from rubricate.gitio import refs as git
from rubricate.gitio.read import read_snapshot
from rubricate.gitio.refs import BaseTree, config_at, export_tree, read_file_at
from rubricate.gitio.run import run_git
from rubricate.judge.service import KEY_VAR, MISSING_KEY, judge_report
from rubricate.rubric.loader import find_rubric
from rubricate.rubric.model import Rubric
from rubricate.rubric_sources import allowed_env, builtin_rubrics

FORMATS = ("table", "json", "markdown")
FAIL_ON = ("fail", "incomplete", "never")
JUDGE_MODES = ("auto", "none", "openai")
UNACCEPTABLE = {"never": (), "fail": ("fail",), "incomplete": ("fail", "incomplete")}


def add_parser(subparsers: Any) -> None:
    """Register `rubricate score`."""
    parser = subparsers.add_parser(
        "score",
        help="score a change in a local git repository against a rubric",
        description="Score the change from --base to --head with automatic evidence, "
        "the command graders and (when configured) the LLM judge.",
    )
    parser.add_argument(
        "--repo", default=".", metavar="DIR", help="the git repository (default: .)"
    )
    parser.add_argument(
        "--base",
        metavar="REF",
        help="score the change since the merge-base of REF and --head, as the pull request "
        "shows it (default: origin/HEAD, main or master)",
    )
    parser.add_argument("--head", default="HEAD", metavar="REF", help="default: HEAD")
    parser.add_argument(
        "--rubric", metavar="NAME|PATH", help="default: the config's rubric, else agora-v3"
    )
    parser.add_argument(
        "--config", metavar="PATH", help="a local config file instead of the base ref's"
    )
    parser.add_argument(
        "--spec", metavar="FILE", help="a markdown file that stands for the linked issue"
    )
    parser.add_argument(
        "--format", choices=FORMATS, default="table", help="output format (default: table)"
    )
    parser.add_argument(
        "--fail-on", choices=FAIL_ON, default="never", help="exit 1 on this verdict or worse"
    )
    parser.add_argument(
        "--judge", choices=JUDGE_MODES, default="auto", help="LLM judge (default: auto)"
    )
    parser.add_argument("--model", metavar="M", help="judge model (default: the config's)")
    parser.add_argument("--no-graders", action="store_true", help="do not run the config's graders")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Score the change and print the report; the exit code follows `--fail-on`."""
    _check_judge_key(args.judge)
    repo = git.check_repository(args.repo)
    head = git.resolve_commit(repo, args.head)
    base = git.merge_base(repo, args.base, head) if args.base else git.default_base(repo, head)
    _check_not_empty(base, head, args)
    config = _load_config(repo, base, args.config)
    named_by = args.config or f"{CONFIG_PATH} at the base ref"
    rubric = _load_rubric(repo, base, args.rubric, config, named_by)
    title, body = git.read_commit_log(repo, base, head)
    with Progress() as progress:
        progress.step(f"reading the change {base[:12]}..{head[:12]}")
        snapshot = read_snapshot(
            repo,
            base,
            head,
            title=title,
            body=body,
            spec=_read_spec(args.spec),
            base_files_wanted=schema_paths(config),
            read_limit=read_limit(config),
        )
        schema_files = BaseTree(repo, base, snapshot.base_files)
        snapshot = dataclasses.replace(snapshot, spec_source=args.spec, base_files=schema_files)
        graders = _grade(repo, snapshot, rubric, config, progress, enabled=not args.no_graders)
        progress.step(f"checking {len(snapshot.changes):,} changed files")
        report = auto_score(snapshot, rubric, config, grader_results=graders)
        progress.step("asking the judge")
        report = _judge(report, snapshot, config, args)
    print(_render(report, args.format), end="")
    _note_uncommitted(repo, args.head)
    return 1 if report.result.verdict in UNACCEPTABLE[args.fail_on] else 0


def _note_uncommitted(repo: Path, head: str) -> None:
    """Say on stderr that edits not yet committed were left out: the score reads commits."""
    if head != "HEAD":
        return
    status = run_git(["status", "--porcelain", "--untracked-files=normal"], repo, check=False)
    edits = status.stdout.splitlines()  # one line per file (a rename is one line)
    if status.returncode == 0 and edits:
        many = "s are" if len(edits) != 1 else " is"
        print(
            f"note: {len(edits)} uncommitted file{many} not scored: rubricate score reads the "
            "commits from --base to --head; commit them to score them",
            file=sys.stderr,
        )


def _check_judge_key(mode: str) -> None:
    """`--judge openai` without a key fails before any grader runs."""
    if mode == "openai" and not os.environ.get(KEY_VAR, "").strip():
        raise ConfigError(MISSING_KEY)


def _check_not_empty(base: str, head: str, args: argparse.Namespace) -> None:
    """An empty change (head is the base, or an ancestor of it) is a usage error."""
    if base != head:
        return
    against = f"--base {args.base}" if args.base else "the default branch"
    raise RubricateError(
        f"nothing to score: {args.head} ({head[:12]}) has no commits that {against} lacks; "
        "pass --base REF of the branch the change will merge into"
    )


def _load_config(repo: Path, base: str, local_path: str | None) -> Config:
    if local_path is not None:
        return load_config(read_text(local_path, "--config"), local_path)
    return config_at(repo, base, CONFIG_PATH, "at the base ref") or Config()


def _load_rubric(repo: Path, base: str, given: str | None, config: Config, named_by: str) -> Rubric:
    def at_base(path: str) -> str:
        try:
            return read_file_at(repo, base, path).decode("utf-8")
        except FileNotFoundError:
            if given is None:
                raise
            return Path(path).read_text(encoding="utf-8")

    env = allowed_env(config.agentv.env)
    if given is not None:
        return find_rubric(given, at_base, builtin_rubrics(), env)
    try:
        return find_rubric(config.rubric, at_base, builtin_rubrics(), env)
    except ConfigError as exc:
        raise ConfigError(f"{exc} (named by {named_by})") from None


def _read_spec(path: str | None) -> str:
    return "" if path is None else read_text(path, "--spec")


def _grade(
    repo: Path,
    snapshot: Snapshot,
    rubric: Rubric,
    config: Config,
    progress: Progress,
    *,
    enabled: bool,
) -> list[CheckResult]:
    if not config.graders:
        return []
    if not enabled:
        return skipped_graders(config.graders, "disabled by --no-graders")
    with tempfile.TemporaryDirectory(prefix="rubricate-head-") as tree:
        export_tree(repo, snapshot.head_sha, tree)
        names = ", ".join(grader.id for grader in config.graders)
        progress.say(f"rubricate: running graders on the head tree: {names}")
        progress.step(f"running graders: {names}")
        return run_graders(config.graders, grader_payload(snapshot, rubric), tree, trusted=True)


def _judge(
    report: ScoreReport, snapshot: Snapshot, config: Config, args: argparse.Namespace
) -> ScoreReport:
    if args.judge == "none":
        return report
    return judge_report(
        report,
        snapshot,
        config.judge,
        mode=args.judge,
        model=args.model,
        env=os.environ,
        cache_dir=None,
    )


def _render(report: ScoreReport, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(report_json(report), indent=2, ensure_ascii=False) + "\n"
    if fmt == "markdown":
        return render_markdown(report)
    return render_table(report)
