"""Measure the injection scan on text it was not trained on; print JSON.

    nice -n 10 python benchmarks/bench_injection.py --mirrors /work/.mirror [--weights FILE]

- false positives: PR-shaped text (commit messages, longer commit messages as descriptions,
  markdown sections, code comment blocks, code, JSON string values) of `MEASURE_REPOS`, none of
  which the training script reads; an item counts when the scan gives it any warning. Shown
  for the scan as it runs with a judge (detector + rules as second opinion), for the detector
  alone and for the rules alone (the scan without a judge's detector);
- non-English: the test set written for this project (`injection_written.TEST_*`), each
  sentence in each carrier;
- speed: CPU time (and wall time, with the load average) of one scan of a 1 MB change
  (files of psf/requests and pallets/click as added lines), with and without the detector.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

from injection_corpora import Item, Mirror, benign_items
from injection_measure import CARRIERS, WHERE, detector_of, verdicts
from injection_written import TEST_BENIGN, TEST_INJECTIONS

from rubricate.judge.detector import Detector
from rubricate.judge.scan import scan_lines

MEASURE_REPOS = (
    "anthropics/courses",
    "brexhq/prompt-engineering",
    "simonw/llm",
    "openai/openai-agents-python",
    "guidance-ai/guidance",
    "openai/openai-python",
    "EntityProcess/agentv",
    "psf/requests",
    "sharkdp/bat",
    "spf13/cobra",
    "google/gson",
    "jqlang/jq",
    "rack/rack",
    "rust-lang/book",
    "encode/httpx",
    "pallets/click",
)
SPEED_REPOS = ("psf/requests", "pallets/click", "encode/httpx", "spf13/cobra", "rack/rack")


def shaped(item: Item) -> str:
    """The item as the scan meets it in its carrier."""
    if item.carrier == "code comment":
        return "".join(f"# {line}\n" for line in item.text.splitlines())
    if item.carrier == "JSON value":
        return json.dumps({"description": item.text}, ensure_ascii=False)
    return item.text


def false_positives(root: Path, detector: Detector, sources: dict[str, str]) -> dict[str, object]:
    per_repo: dict[str, dict[str, float]] = {}
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    examples: list[dict[str, str]] = []
    for repo in MEASURE_REPOS:
        counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for item in benign_items(root, repo, sources):
            found = verdicts(shaped(item), WHERE[item.carrier], detector)
            for way, flagged in found.items():
                for key in (f"{way}", f"{way} / {item.carrier}"):
                    counts[key][0] += flagged
                    counts[key][1] += 1
                    totals[key][0] += flagged
                    totals[key][1] += 1
            if found["scan"] and len(examples) < 40:
                examples.append({"repo": repo, "carrier": item.carrier, "text": item.text[:200]})
        per_repo[repo] = {
            k: round(a / b, 4) for k, (a, b) in sorted(counts.items()) if "/" not in k
        }
        per_repo[repo]["items"] = counts["scan"][1]
    overall = {k: {"rate": round(a / b, 4), "items": b} for k, (a, b) in sorted(totals.items())}
    return {"overall": overall, "per_repo": per_repo, "flagged_examples": examples}


def non_english(detector: Detector) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for language, injections in TEST_INJECTIONS.items():
        hits = misses = fps = benign = 0
        for carrier, embed in CARRIERS.items():
            for text in injections:
                flagged = verdicts(embed(text), WHERE[carrier], detector)["scan"]
                hits += flagged
                misses += not flagged
            for text in TEST_BENIGN[language]:
                fps += verdicts(embed(text), WHERE[carrier], detector)["scan"]
                benign += 1
        out[language] = {"recall": round(hits / (hits + misses), 3), "fp": round(fps / benign, 3)}
    return out


def speed_lines(root: Path) -> tuple[list[tuple[int, str]], list[str]]:
    """1 MB of distinct lines (code and docs of `SPEED_REPOS`, none repeated, so per-line
    caches only help where real files repeat lines), numbered, and the repositories read."""
    lines: list[tuple[int, str]] = []
    size = 0
    used: list[str] = []
    for repo in SPEED_REPOS:
        mirror = Mirror(root, repo)
        used.append(f"{repo}@{mirror.commit}")
        for _path, text in mirror.read_many(mirror.paths(r"\.(?:py|md|rst|go|rb)$"), 400):
            for line in text.splitlines():
                lines.append((len(lines) + 1, line))
                size += len(line.encode()) + 1
                if size >= 1 << 20:
                    return lines, used
    return lines, used


def speed(root: Path, detector: Detector) -> dict[str, object]:
    """CPU time of one scan of a 1 MB change (`speed_lines`) with and without the detector."""
    lines, used = speed_lines(root)
    fresh = Detector(
        detector.weights, detector.bias, detector.threshold, thresholds=detector.thresholds
    )
    started, wall = time.process_time(), time.perf_counter()
    scan_lines(lines, "src/big.py", fresh)
    seconds, wall = time.process_time() - started, time.perf_counter() - wall
    started = time.process_time()
    scan_lines(lines, "src/big.py")
    rules = time.process_time() - started
    return {
        "bytes": sum(len(line.encode()) + 1 for _n, line in lines),
        "repos": used,
        "cpu_seconds": round(seconds, 3),
        "wall_seconds": round(wall, 3),
        "rules_only": round(rules, 3),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--weights", type=Path)
    parser.add_argument("--no-fp", action="store_true", help="skip the false-positive corpus")
    args = parser.parse_args(argv)
    detector = detector_of(args.weights)
    sources: dict[str, str] = {}
    result: dict[str, object] = {"detector": detector.version, "threshold": detector.threshold}
    result["speed_1mb"] = speed(args.mirrors, detector)
    result["non_english"] = non_english(detector)
    if not args.no_fp:
        result["false_positives"] = false_positives(args.mirrors, detector, sources)
    result["sources"] = sources
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
