"""Benchmark: the judge prompt for a 5,000-file change, built within the token budget.

Run: `python benchmarks/bench_judge_prompt.py [--files N] [--budget TOKENS] [--repeat R]`.
Prints JSON: build time (best of R), tokens used, files seen, truncated and left out, the
time of the injection scan over the whole change, and the whole `judge_report` step against an
in-process mock server (no network), cold and then from the cache. Goal: the prompt in < 1 s.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from typing import TypeVar

from rubricate.cli.rubric_cmd import resolve_rubric
from rubricate.config import JudgeConfig
from rubricate.evidence.results import ScoreReport
from rubricate.evidence.snapshot import FileChange, Snapshot
from rubricate.judge.budget import Budget
from rubricate.judge.prompt import Prompt, build_prompt
from rubricate.judge.reply_schema import REPORT_KEY
from rubricate.judge.scan import scan_snapshot
from rubricate.rubric.model import Rubric
from rubricate.rubric.scoring import score

GOAL_SECONDS = 1.0
T = TypeVar("T")


def _patch(lines: list[str]) -> str:
    return f"@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{line}\n" for line in lines)


def _change(index: int) -> FileChange:
    """A mix of source, tests, docs, JSON deliverables, lockfiles and vendored files."""
    kind = index % 10
    if kind == 0:
        return FileChange(f"vendor/pkg{index}/lib.go", "added", _patch(["package lib"] * 20))
    if kind == 1:
        return FileChange(f"app{index}/package-lock.json", "modified", _patch(['"x": 1'] * 50))
    if kind == 2:
        body = [f"# Module {index}", "", "Explains the parser and its options."] * 5
        return FileChange(f"docs/m{index}.md", "added", _patch(body))
    if kind == 3:
        body = [f'{{"id": {index}, "name": "item {index}", "ok": true}}']
        return FileChange(f"out/result{index}.json", "added", _patch(body))
    if kind == 4:
        body = [f"def test_{index}():", f"    assert parse('{index}') == [{index}]"] * 4
        return FileChange(f"tests/test_m{index}.py", "added", _patch(body))
    lines = [f"def handler_{index}_{j}(value: int) -> int:" for j in range(12)]
    lines += [f"    return value * {index} + {j}" for j in range(12)]
    return FileChange(f"src/pkg{index % 50}/m{index}.py", "added", _patch(lines))


def _snapshot(files: int) -> Snapshot:
    return Snapshot(
        base_sha="a" * 40,
        head_sha="b" * 40,
        head_tree="c" * 40,
        title="Add 5,000 handlers",
        body="Adds handlers, tests and docs.\n" * 20,
        spec="Write handlers for every module in src/pkg1/m1.py and friends.\n" * 40,
        changes=tuple(_change(i) for i in range(files)),
    )


def _best(repeat: int, action: Callable[[], T]) -> tuple[float, T]:
    """The fastest of `repeat` runs, and the last result."""
    times = []
    for _ in range(max(1, repeat)):
        started = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - started)
    return min(times), result


def _mock_http_client() -> object:
    """An httpx2 client whose transport answers every call with a valid judgment."""
    import httpx2

    def handler(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        ids = [
            k
            for k in body["response_format"]["json_schema"]["schema"]["required"]
            if k != REPORT_KEY
        ]
        reply = {cid: {"score": 3, "rationale": "ok", "evidence": []} for cid in ids}
        message = {"role": "assistant", "content": json.dumps(reply)}
        choice = {"index": 0, "finish_reason": "stop", "message": message}
        usage = {"prompt_tokens": 30000, "completion_tokens": 400, "total_tokens": 30400}
        data = {"id": "b", "object": "chat.completion", "created": 1, "model": "m"}
        return httpx2.Response(200, json=data | {"choices": [choice], "usage": usage})

    return httpx2.Client(transport=httpx2.MockTransport(handler))


def _judge_step(rubric: Rubric, snap: Snapshot, cache_dir: str) -> tuple[float, float]:
    """Seconds of `judge_report` on a cache miss, then on a hit."""
    from rubricate.judge.service import judge_report

    empty = ScoreReport(rubric, snap.base_sha, snap.head_sha, (), (), score(rubric, {}))
    env = {"OPENAI_API_KEY": "bench", "OPENAI_BASE_URL": "http://bench.invalid/v1"}

    def step() -> ScoreReport:
        return judge_report(
            empty, snap, JudgeConfig(), mode="openai", model=None, env=env,
            cache_dir=cache_dir, http_client=_mock_http_client(),
        )  # fmt: skip

    cold, _ = _best(1, step)
    warm, _ = _best(1, step)
    return cold, warm


def main() -> None:
    """Build the prompt and print the measurements as JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--budget", type=int, default=32000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rubric = resolve_rubric("agora-v3")
    snap = _snapshot(args.files)
    budget = Budget(max_input_tokens=args.budget)

    def build() -> Prompt:
        return build_prompt(rubric, snap, budget, marker="0123456789abcdef", phase="submission")

    seconds, prompt = _best(args.repeat, build)
    scan_seconds, findings = _best(1, lambda: scan_snapshot(snap))
    with tempfile.TemporaryDirectory() as warm_up, tempfile.TemporaryDirectory() as cache_dir:
        _judge_step(rubric, _snapshot(10), warm_up)  # load openai once, outside the timing
        cold, warm = _judge_step(rubric, snap, cache_dir)
    reasons = Counter(item.reason for item in prompt.files_left_out)
    print(
        json.dumps(
            {
                "benchmark": "judge_prompt",
                "files": args.files,
                "budget_tokens": args.budget,
                "build_seconds": round(seconds, 4),
                "goal_seconds": GOAL_SECONDS,
                "within_goal": seconds < GOAL_SECONDS,
                "tokens_used": prompt.tokens_estimate,
                "within_budget": prompt.tokens_estimate <= args.budget,
                "files_seen": len(prompt.files_seen),
                "files_truncated": len(prompt.files_truncated),
                "files_left_out": len(prompt.files_left_out),
                "left_out_by_reason": dict(sorted(reasons.items())),
                "scan_seconds": round(scan_seconds, 4),
                "scan_findings": len(findings),
                "judge_step_seconds": round(cold, 4),
                "judge_step_cached_seconds": round(warm, 4),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
