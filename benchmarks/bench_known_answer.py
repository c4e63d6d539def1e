"""Measure the judge's known-answer check against a real OpenAI-compatible server; print JSON.

    nice -n 10 python benchmarks/bench_known_answer.py --base-url http://127.0.0.1:8080/v1 \
        --model NAME --mirrors /work/.mirror [--per-source 15] [--benign 60] [--control 5]

Each held-out payload of `bench_injection_heldout.SOURCES` (`--per-source`, taken evenly) is
embedded as a PR description (`injection_measure.CARRIERS["description"]`); the benign items are
descriptions, commit messages and README sections of `bench_injection.MEASURE_REPOS`
(`--benign` in all, taken evenly over the repositories), each the whole PR description; the
control is the description carrier with no payload in it. Each becomes a small PR (a title,
that description, one added file) and is checked as rubricate's judge step checks it: the
judgment prompt of the last phase built by `prompt.build_prompt` with a fresh marker,
`known_answer.check_messages` over its user message, one call through rubricate's openai
adapter (structured output negotiated and remembered as in a run, `max_tokens` as in a run),
and `known_answer.verdict`. A call that fails is `not checked`, with the kind of fault.

Reported per source: the shares failed, passed and not checked (and the faults by kind), the
shares the shipped injection scan flags on the same PR (`scan_processes.scan_change` with the
shipped detector: what a run with a judge reports) and the union (scan or failed check),
tokens in and out and the mean latency of a call, and the first failed replies (cut short).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
from bench_injection import MEASURE_REPOS
from bench_injection_heldout import SOURCES, open_mirror, source_names
from injection_corpora import benign_items, evenly
from injection_measure import CARRIERS

from rubricate.cli.rubric_cmd import resolve_rubric
from rubricate.config import JudgeConfig
from rubricate.evidence.snapshot import FileChange, Snapshot
from rubricate.judge import known_answer
from rubricate.judge.adapter.client import JudgeCallError, OpenAIJudgeClient
from rubricate.judge.adapter.server_modes import ServerModes
from rubricate.judge.budget import Budget
from rubricate.judge.client_detector import load_detector
from rubricate.judge.detector import Detector
from rubricate.judge.prompt import build_prompt, phase_criteria
from rubricate.judge.runner import PHASES
from rubricate.judge.scan_processes import scan_change
from rubricate.judge.step import MAX_RETRIES
from rubricate.rubric.model import Rubric

BENIGN_CARRIERS = ("description", "commit message", "README")
ADDED = "src/export.py"
ADDED_TEXT = (
    "import csv\n\n\ndef export(rows, path):\n"
    '    with open(path, "w", newline="") as out:\n'
    "        csv.writer(out).writerows(rows)\n"
)
SHOWN_REPLIES = 8
REPLY_CHARS = 120


def pr(body: str) -> Snapshot:
    """A small PR: a title, `body` as its description, one added file."""
    patch = "@@ -0,0 +1,6 @@\n" + "".join(f"+{line}\n" for line in ADDED_TEXT.splitlines())
    return Snapshot(
        base_sha="a" * 40,
        head_sha="b" * 40,
        title="Add CSV export",
        body=body,
        changes=(FileChange(ADDED, "added", patch),),
    )


class LastReply:
    """The text of the server's last completion, kept by a response hook: a reply cut off at
    the token limit is an error to the client, but what the model wrote is worth seeing."""

    def __init__(self) -> None:
        self.text = ""

    def hook(self, response: httpx2.Response) -> None:
        response.read()
        try:
            self.text = str(response.json()["choices"][0]["message"]["content"])
        except (ValueError, KeyError, IndexError, TypeError):
            self.text = response.text

    def client(self, transport: httpx2.BaseTransport | None = None) -> httpx2.Client:
        return httpx2.Client(transport=transport, event_hooks={"response": [self.hook]})


@dataclass
class Judge:
    """What every check is made with: the client, the rubric, the budget, the model."""

    client: OpenAIJudgeClient
    rubric: Rubric
    budget: Budget
    settings: JudgeConfig
    model: str
    last: LastReply


def check(judge: Judge, snapshot: Snapshot) -> dict[str, Any]:
    """One known-answer check over `snapshot`, as the judge step makes it."""
    phase = [p for p in PHASES if phase_criteria(judge.rubric, p)][-1]
    marker, answer = secrets.token_hex(8), secrets.token_hex(8)
    prompt = build_prompt(judge.rubric, snapshot, judge.budget, marker=marker, phase=phase)
    messages = known_answer.check_messages(prompt.messages[-1]["content"], marker, answer)
    settings = judge.settings
    judge.last.text = ""
    try:
        raw = judge.client.complete(
            messages, known_answer.SCHEMA, judge.model, settings.temperature, settings.seed,
            max_tokens=known_answer.MAX_TOKENS, remaining_s=settings.timeout_s,
        )  # fmt: skip
    except JudgeCallError as exc:
        spent = exc.spent
        return {
            "verdict": known_answer.NOT_CHECKED,
            "fault": exc.kind,
            "reply": f"{exc}: {judge.last.text}",
            "mode": exc.mode,
            "tokens_in": spent.tokens_in,
            "tokens_out": spent.tokens_out,
            "latency_ms": spent.latency_ms,
        }
    return {
        "verdict": known_answer.verdict(raw.text, answer),
        "reply": raw.text,
        "answer_in_reply": answer in raw.text,
        "mode": raw.mode,
        "tokens_in": raw.tokens_in,
        "tokens_out": raw.tokens_out,
        "latency_ms": raw.latency_ms,
    }


def flagged_by_scan(snapshot: Snapshot, detector: Detector) -> bool:
    """True when the shipped scan warns about the PR (what a run with a judge reports)."""
    return any(f.severity == "warning" for f in scan_change(snapshot, detector))


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The shares and costs of a group of checked items."""
    size = max(len(rows), 1)
    verdicts = Counter(r["verdict"] for r in rows)
    failed = [r for r in rows if r["verdict"] == known_answer.FAILED]
    called = [r for r in rows if r["latency_ms"]]
    scanned = sum(r["scan"] for r in rows)
    either = sum(r["scan"] or r["verdict"] == known_answer.FAILED for r in rows)
    return {
        "items": len(rows),
        "counts": dict(verdicts) | {"scan": scanned, "union": either},
        "failed": round(verdicts[known_answer.FAILED] / size, 3),
        "passed": round(verdicts[known_answer.PASSED] / size, 3),
        "not_checked": round(verdicts[known_answer.NOT_CHECKED] / size, 3),
        "faults": dict(Counter(r["fault"] for r in rows if "fault" in r)),
        "failed_with_answer_in_reply": sum(bool(r.get("answer_in_reply")) for r in failed),
        "scan": round(scanned / size, 3),
        "union": round(either / size, 3),
        "tokens_in_mean": round(sum(r["tokens_in"] for r in rows) / size),
        "tokens_out_mean": round(sum(r["tokens_out"] for r in rows) / size, 1),
        "latency_ms_mean": round(sum(r["latency_ms"] for r in called) / max(len(called), 1)),
        "failed_replies": [r["reply"][:REPLY_CHARS] for r in failed[:SHOWN_REPLIES]],
        "not_checked_replies": [
            r["reply"][:REPLY_CHARS] for r in rows if r["verdict"] == known_answer.NOT_CHECKED
        ][:SHOWN_REPLIES],
    }


def measured(judge: Judge, detector: Detector, bodies: Iterable[str], name: str) -> dict[str, Any]:
    rows = []
    for body in bodies:
        snapshot = pr(body)
        row = check(judge, snapshot)
        row["scan"] = flagged_by_scan(snapshot, detector)
        rows.append(row)
    result = summary(rows)
    result["modes"] = dict(Counter(str(r["mode"]) for r in rows))
    print(name, {k: result[k] for k in ("items", "failed", "not_checked", "scan")}, file=sys.stderr)
    return result


def payloads(root: Path, name: str, limit: int, sources: dict[str, str]) -> list[str]:
    mirror = open_mirror(root, name)
    sources[name] = f"github:{mirror.repo}@{mirror.commit}"
    texts = SOURCES[name][1](mirror)
    return evenly(list(dict.fromkeys(t.strip() for t in texts if t.strip())), limit)


def benign(root: Path, limit: int, sources: dict[str, str]) -> list[str]:
    """`limit` descriptions, commit messages and README sections, evenly over the repositories."""
    share = -(-limit // len(MEASURE_REPOS))
    pool: list[str] = []
    for repo in MEASURE_REPOS:
        items = [i.text for i in benign_items(root, repo, sources) if i.carrier in BENIGN_CARRIERS]
        pool += evenly(items, share)
    return evenly(pool, limit)


def server_arguments(parser: argparse.ArgumentParser, per_source: int, benign: int) -> None:
    """The arguments every benchmark of a real judge server takes."""
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--per-source", type=int, default=per_source)
    parser.add_argument("--benign", type=int, default=benign)
    parser.add_argument("--rubric", default="agora-v3")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--sources", help="comma-separated held-out source names (default: all)")


@contextmanager
def judge_of(args: argparse.Namespace) -> Iterator[Judge]:
    """The judge the arguments name: rubricate's openai adapter, structured output negotiated
    and remembered (in a temporary directory) as in a run."""
    settings = JudgeConfig(model=args.model, timeout_s=args.timeout)
    last = LastReply()
    with tempfile.TemporaryDirectory() as cache, last.client() as http:
        client = OpenAIJudgeClient(
            os.environ.get("OPENAI_API_KEY", "local"), args.base_url, timeout_s=args.timeout,
            max_retries=MAX_RETRIES, http_client=http, modes=ServerModes(Path(cache)),
        )  # fmt: skip
        rubric = resolve_rubric(args.rubric)
        yield Judge(client, rubric, Budget.from_settings(settings), settings, args.model, last)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    server_arguments(parser, per_source=15, benign=60)
    parser.add_argument("--control", type=int, default=5)
    args = parser.parse_args(argv)
    names = source_names(parser, args.sources)
    detector = load_detector()
    sources: dict[str, str] = {}
    with judge_of(args) as judge:
        control = [CARRIERS["description"]("")] * args.control
        result: dict[str, Any] = {"model": args.model, "rubric": args.rubric}
        result["detector"] = detector.version
        result["control"] = measured(judge, detector, control, "control")
        bodies = benign(args.mirrors, args.benign, sources)
        result["benign"] = measured(judge, detector, bodies, "benign")
        per_source: dict[str, dict[str, Any]] = {}
        for name in names:
            embedded = map(
                CARRIERS["description"], payloads(args.mirrors, name, args.per_source, sources)
            )
            per_source[name] = measured(judge, detector, embedded, name)
    keys = (known_answer.FAILED, known_answer.PASSED, known_answer.NOT_CHECKED, "scan", "union")
    print_result(result, per_source, sources, keys)
    return 0


def print_result(
    result: dict[str, Any],
    per_source: dict[str, dict[str, Any]],
    sources: dict[str, str],
    keys: Iterable[str],
) -> None:
    """Print `result` as JSON with the shares of `keys` over every injection, the per-source
    results, the sources read and the load average."""
    rows = per_source.values()
    count = sum(r["items"] for r in rows)
    result["injections"] = {"items": count} | {
        key: round(sum(r["counts"].get(key, 0) for r in rows) / max(count, 1), 3) for key in keys
    }
    result["per_source"] = per_source
    result["sources"] = sources
    result["load_average"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(result, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    sys.exit(main())
