"""Measure how often the judge reports text addressed to the reviewer, against a real
OpenAI-compatible server; print JSON.

    nice -n 10 python benchmarks/bench_judge_reports.py --base-url http://127.0.0.1:8080/v1 \
        --model NAME --mirrors /work/.mirror [--per-source 5] [--benign 20] [--max-tokens N]

The items are those of `bench_known_answer.py`: held-out payloads of
`bench_injection_heldout.SOURCES` (`--per-source`, taken evenly) embedded as a PR description,
and PR descriptions, commit messages and README sections of `bench_injection.MEASURE_REPOS`
(`--benign`, taken evenly over the repositories), each a small PR (a title, that description,
one added file). Each is judged as a run judges it: the prompt of the last phase from
`prompt.build_prompt` with a fresh marker, one call through rubricate's openai adapter
(structured output negotiated and remembered as in a run). The passages under
`reply_schema.REPORT_KEY` are read with `reply.parse_reply`, or, when the reply is cut off
(`--max-tokens` below what the criteria need, to keep a small model's calls short) or invalid,
from the key's complete value at the start of the reply, with the same limits
(`reply.reported_passages`); then checked by `reports.verify` against what the call was shown.

Reported per source and for the benign items: the shares with a passage reported, with one
verified (a warning in a run), with a verified passage inside the payload itself, with a
passage not found, too short, over the limits or malformed (ignored in a run), replies
complete and read from a cut reply, faults by kind, tokens and the mean latency of a call, the
scan's share on the same PR and the union (scan or verified report), and the first verified
passages (cut short).
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from collections import Counter
from collections.abc import Iterable
from typing import Any

from bench_injection_heldout import source_names
from bench_known_answer import (
    Judge,
    benign,
    flagged_by_scan,
    judge_of,
    payloads,
    pr,
    print_result,
    server_arguments,
)
from injection_measure import CARRIERS

from rubricate.errors import ReplyError
from rubricate.judge.adapter.client import JudgeCallError
from rubricate.judge.client_detector import load_detector
from rubricate.judge.detector import Detector
from rubricate.judge.prompt import build_prompt, phase_criteria
from rubricate.judge.quotes import appears_in, forms
from rubricate.judge.reply import parse_reply, reported_passages
from rubricate.judge.reply_schema import REPORT_KEY, max_output_tokens
from rubricate.judge.reports import verify
from rubricate.judge.runner import PHASES

SHOWN = 8
QUOTE_CHARS = 120


def reported_values(text: str) -> list[Any]:
    """Each complete value given to `REPORT_KEY` in a reply, read even from a reply cut off
    after it."""
    decoder = json.JSONDecoder()
    key = json.dumps(REPORT_KEY)
    values: list[Any] = []
    at = text.find(key)
    while at >= 0:
        rest = text[at + len(key) :].lstrip()
        if rest.startswith(":"):
            try:
                values.append(decoder.raw_decode(rest[1:].lstrip())[0])
            except ValueError:
                break
        at = text.find(key, at + len(key))
    return values


def judged(judge: Judge, body: str, payload: str, limit: int | None) -> dict[str, Any]:
    """One judgment call over the PR with `body`, and what it reported."""
    snapshot = pr(body)
    phase = [p for p in PHASES if phase_criteria(judge.rubric, p)][-1]
    prompt = build_prompt(
        judge.rubric, snapshot, judge.budget, marker=secrets.token_hex(8), phase=phase
    )
    settings = judge.settings
    tokens = limit or max_output_tokens(len(prompt.criteria_ids), settings.max_output_tokens)
    judge.last.text = ""
    row: dict[str, Any] = {"complete": False}
    try:
        raw = judge.client.complete(
            prompt.messages, prompt.schema, judge.model, settings.temperature, settings.seed,
            max_tokens=tokens, remaining_s=settings.timeout_s,
        )  # fmt: skip
        text, spent, mode = raw.text, raw.spent, raw.mode
    except JudgeCallError as exc:
        text, spent, mode = judge.last.text, exc.spent, exc.mode
        row["fault"] = exc.kind
    try:
        judgment = parse_reply(text, judge.rubric, prompt.criteria_ids, judge.budget.open_ceiling)
        passages, dropped = judgment.reported, judgment.dropped + judgment.malformed
        row["complete"] = True
    except ReplyError:
        passages, over, malformed = reported_passages(reported_values(text))
        dropped = over + malformed
    reports, missing = verify(passages, prompt.untrusted)
    on_payload = payload and any(appears_in(r.quote, forms(payload)) for r in reports)
    return row | {
        "read": bool(row["complete"] or reported_values(text)),
        "reported": bool(passages),
        "verified": bool(reports),
        "on_payload": bool(on_payload),
        "not_found": missing + dropped,
        "quotes": [r.quote for r in reports],
        "missing_quotes": [p for p in passages if not any(p in r.quote for r in reports)],
        "mode": mode,
        "tokens_in": spent.tokens_in,
        "tokens_out": spent.tokens_out,
        "latency_ms": spent.latency_ms,
    }


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The shares and costs of a group of judged items."""
    size = max(len(rows), 1)
    counts = {
        key: sum(bool(r[key]) for r in rows)
        for key in ("read", "complete", "reported", "verified", "on_payload", "scan")
    }
    counts["union"] = sum(r["scan"] or r["verified"] for r in rows)
    counts["with_not_found"] = sum(r["not_found"] > 0 for r in rows)
    called = [r for r in rows if r["latency_ms"]]
    return {
        "items": len(rows),
        "counts": counts,
        "shares": {key: round(value / size, 3) for key, value in counts.items()},
        "faults": dict(Counter(r["fault"] for r in rows if "fault" in r)),
        "modes": dict(Counter(str(r["mode"]) for r in rows)),
        "tokens_in_mean": round(sum(r["tokens_in"] for r in rows) / size),
        "tokens_out_mean": round(sum(r["tokens_out"] for r in rows) / size, 1),
        "latency_ms_mean": round(sum(r["latency_ms"] for r in called) / max(len(called), 1)),
        "verified_quotes": [q[:QUOTE_CHARS] for r in rows for q in r["quotes"]][:SHOWN],
        "not_found_quotes": [q[:QUOTE_CHARS] for r in rows for q in r["missing_quotes"]][:SHOWN],
    }


def measured(
    judge: Judge,
    detector: Detector,
    items: Iterable[tuple[str, str]],
    name: str,
    limit: int | None,
) -> dict[str, Any]:
    """`summary` over (description, payload) items, with the scan's verdict on each."""
    rows = []
    for body, payload in items:
        row = judged(judge, body, payload, limit)
        row["scan"] = flagged_by_scan(pr(body), detector)
        rows.append(row)
    result = summary(rows)
    print(name, result["shares"], file=sys.stderr)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    server_arguments(parser, per_source=5, benign=20)
    parser.add_argument("--max-tokens", type=int, help="cut each reply here (default: a run's)")
    args = parser.parse_args(argv)
    names = source_names(parser, args.sources)
    detector = load_detector()
    sources: dict[str, str] = {}
    result: dict[str, Any] = {"model": args.model, "rubric": args.rubric}
    result["max_tokens"] = args.max_tokens
    with judge_of(args) as judge:
        bodies = [(body, "") for body in benign(args.mirrors, args.benign, sources)]
        result["benign"] = measured(judge, detector, bodies, "benign", args.max_tokens)
        per_source: dict[str, dict[str, Any]] = {}
        for name in names:
            texts = payloads(args.mirrors, name, args.per_source, sources)
            items = [(CARRIERS["description"](text), text) for text in texts]
            per_source[name] = measured(judge, detector, items, name, args.max_tokens)
    print_result(
        result, per_source, sources, ("reported", "verified", "on_payload", "scan", "union")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
