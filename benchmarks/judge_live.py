"""Benchmark: the judge on the bundled example against a real OpenAI-compatible server.

Run a server, then:
`OPENAI_BASE_URL=http://127.0.0.1:8080/v1 OPENAI_API_KEY=local python benchmarks/judge_live.py
--model NAME [--rubric agora-v3] [--timeout 120] [--runs 2]`.

It judges the example change (`examples/spec.md` as the spec, every file under
`examples/deliverable/` as added) and prints JSON: for each run, the structured-output mode
negotiated, the calls and HTTP attempts, tokens in and out, the latency summed over attempts,
the wall time, the verdict, the criteria not assessed and the errors. The judge cache is a fresh
temporary directory, so the first run negotiates and the next ones start at the remembered rung
(and, when the first run succeeded, come from the cache). Tried with llama.cpp's `llama-server`
and llama-cpp-python's `python -m llama_cpp.server` (see the README); any server that speaks
`/v1/chat/completions` (vLLM, Ollama, OpenAI) works the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from rubricate.cli.rubric_cmd import resolve_rubric
from rubricate.config import JudgeConfig
from rubricate.evidence.results import ScoreReport
from rubricate.evidence.snapshot import FileChange, Snapshot
from rubricate.judge.service import judge_report
from rubricate.rubric.scoring import score

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples"


def _patch(text: str) -> str:
    lines = text.splitlines()
    return f"@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{line}\n" for line in lines)


def example_snapshot() -> Snapshot:
    """The bundled example as a change that adds every deliverable file."""
    files = sorted(p for p in (EXAMPLE / "deliverable").rglob("*") if p.is_file())
    changes = tuple(
        FileChange(
            p.relative_to(EXAMPLE).as_posix(),
            "added",
            _patch(p.read_text(encoding="utf-8", errors="replace")),
        )
        for p in files
    )
    return Snapshot(
        base_sha="a" * 40,
        head_sha="b" * 40,
        head_tree="c" * 40,
        title="Add wordstats: word counts for a text file",
        body="Implements the spec: a word-count module, its tests, a JSON result and its schema.",
        spec=(EXAMPLE / "spec.md").read_text(encoding="utf-8"),
        changes=changes,
    )


def _run(rubric_id: str, settings: JudgeConfig, env: dict[str, str], cache: str) -> dict[str, Any]:
    rubric = resolve_rubric(rubric_id)
    snap = example_snapshot()
    empty = ScoreReport(rubric, snap.base_sha, snap.head_sha, (), (), score(rubric, {}))
    started = time.monotonic()
    result = judge_report(
        empty, snap, settings, mode="openai", model=None, env=env, cache_dir=cache
    )
    wall = time.monotonic() - started
    judge = result.judge or {}
    keys = ("mode", "calls", "attempts", "tokens_in", "tokens_out", "latency_ms", "cached")
    return {
        **{key: judge.get(key) for key in keys},
        "wall_ms": int(wall * 1000),
        "verdict": result.result.verdict,
        "scores": result.scores(),
        "not_assessed": judge.get("not_assessed"),
        "errors": judge.get("errors"),
        "stripped": judge.get("stripped"),
    }


def main() -> None:
    """Judge the example `--runs` times against `OPENAI_BASE_URL` and print JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default=os.environ.get("RUBRICATE_JUDGE_MODEL", "local"))
    parser.add_argument("--rubric", default="agora-v3")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--max-input-tokens", type=int, default=6000)
    parser.add_argument("--max-output-tokens", type=int, default=4096)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    env = {
        "OPENAI_API_KEY": os.environ.get("OPENAI_API_KEY", "local"),
        "OPENAI_BASE_URL": os.environ.get("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1"),
    }
    settings = JudgeConfig(
        model=args.model,
        timeout_s=args.timeout,
        max_input_tokens=args.max_input_tokens,
        max_output_tokens=args.max_output_tokens,
    )
    with tempfile.TemporaryDirectory() as cache:
        runs = [_run(args.rubric, settings, env, cache) for _ in range(max(1, args.runs))]
    print(
        json.dumps(
            {
                "benchmark": "judge_live",
                "base_url": env["OPENAI_BASE_URL"],
                "model": args.model,
                "rubric": args.rubric,
                "timeout_s": args.timeout,
                "runs": runs,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
