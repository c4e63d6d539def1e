"""Measure the injection scan on held-out public corpora it is never trained or tuned on; JSON.

    nice -n 10 python benchmarks/bench_injection_heldout.py --mirrors /work/.mirror [--weights F]

Each source is read from a git mirror (`fetch`ed to `--mirrors`; a source whose mirror is
absent is skipped and listed), its commit recorded, and each payload (at most `PER_SOURCE`,
taken evenly) embedded in every carrier of `injection_measure.CARRIERS`; the shares flagged
are given overall, per source and per carrier. The training script never reads these
repositories.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections.abc import Callable
from pathlib import Path

from injection_corpora import Mirror, evenly
from injection_measure import CARRIERS, WAYS, WHERE, verdicts

from rubricate.judge.detector import Detector

PER_SOURCE = 120


def bipia(name: str) -> Callable[[Mirror], list[str]]:
    def read(mirror: Mirror) -> list[str]:
        data = json.loads(mirror.read(f"benchmark/{name}.json"))
        return [text for values in data.values() for text in values]

    return read


def tensor_trust(path: str) -> Callable[[Mirror], list[str]]:
    def read(mirror: Mirror) -> list[str]:
        rows = [json.loads(line) for line in mirror.read(path).splitlines() if line.strip()]
        return [str(row["attack"]) for row in rows if str(row.get("attack", "")).strip()]

    return read


def promptmap(mirror: Mirror) -> list[str]:
    found: list[str] = []
    for path in mirror.paths(r"^rules/.*\.ya?ml$"):
        for line in mirror.read(path).splitlines():
            if line.startswith("prompt:"):
                found.append(
                    json.loads(line.removeprefix("prompt:").strip())
                    if '"' in line
                    else line[7:].strip()
                )
    return found


def llm_guard(mirror: Mirror) -> list[str]:
    """The prompts llm-guard's prompt-injection tests expect to be flagged."""
    tree = ast.parse(mirror.read("tests/input_scanners/test_prompt_injection.py"))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple) and len(node.elts) == 4:
            prompt, valid = node.elts[1], node.elts[2]
            if isinstance(valid, ast.Constant) and valid.value is False:
                try:
                    found.append(str(ast.literal_eval(prompt)))
                except ValueError:
                    continue
    return found


SOURCES: dict[str, tuple[str, Callable[[Mirror], list[str]]]] = {
    "bipia-text": ("microsoft/BIPIA", bipia("text_attack_test")),
    "bipia-code": ("microsoft/BIPIA", bipia("code_attack_test")),
    "tensor-trust-hijacking": (
        "HumanCompatibleAI/tensor-trust-data",
        tensor_trust("benchmarks/hijacking-robustness/v1/hijacking_robustness_dataset.jsonl"),
    ),
    "tensor-trust-extraction": (
        "HumanCompatibleAI/tensor-trust-data",
        tensor_trust("benchmarks/extraction-robustness/v1/extraction_robustness_dataset.jsonl"),
    ),
    "promptmap": ("utkusen/promptmap", promptmap),
    "llm-guard-tests": ("protectai/llm-guard", llm_guard),
}


def measure(root: Path, detector: Detector) -> dict[str, object]:
    per_source: dict[str, dict[str, float]] = {}
    sources: dict[str, str] = {}
    skipped: list[str] = []
    totals = dict.fromkeys(WAYS, 0)
    by_carrier = {carrier: dict.fromkeys(WAYS, 0) for carrier in CARRIERS}
    count = 0
    for name, (repo, reader) in SOURCES.items():
        try:
            mirror = Mirror(root, repo)
        except SystemExit:
            skipped.append(name)
            continue
        sources[name] = f"github:{repo}@{mirror.commit}"
        payloads = evenly(
            list(dict.fromkeys(t.strip() for t in reader(mirror) if t.strip())), PER_SOURCE
        )
        mine = dict.fromkeys(WAYS, 0)
        for carrier, embed in CARRIERS.items():
            for payload in payloads:
                found = verdicts(embed(payload), WHERE[carrier], detector)
                for way in WAYS:
                    mine[way] += found[way]
                    by_carrier[carrier][way] += found[way]
        size = len(payloads) * len(CARRIERS)
        row: dict[str, float] = {"payloads": len(payloads)}
        row.update({way: round(mine[way] / max(size, 1), 3) for way in WAYS})
        per_source[name] = row
        for way in WAYS:
            totals[way] += mine[way]
        count += size
        print(name, row, file=sys.stderr)
    overall = {way: round(totals[way] / max(count, 1), 3) for way in WAYS}
    share = max(count // len(CARRIERS), 1)
    per_carrier = {
        carrier: {way: round(hits[way] / share, 3) for way in WAYS}
        for carrier, hits in by_carrier.items()
    }
    return {
        "overall": overall,
        "per_source": per_source,
        "per_carrier": per_carrier,
        "sources": sources,
        "skipped": skipped,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--weights", type=Path)
    args = parser.parse_args(argv)
    if args.weights:
        detector = Detector.from_bytes(args.weights.read_bytes())
    else:
        from rubricate.judge.client_detector import load_detector

        detector = load_detector()
    result = {"detector": detector.version, "threshold": detector.threshold}
    result.update(measure(args.mirrors, detector))
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
