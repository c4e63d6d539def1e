"""What a recall target asks of the injection detector: held-out recall against false
positives on real PR-shaped text, thresholds chosen with hindsight; print JSON.

    nice -n 10 python benchmarks/injection_tradeoff.py --mirrors /work/.mirror [--weights F]

Every item is scored once, as the scan meets it: the benign PR-shaped text of
`bench_injection.MEASURE_REPOS` (`bench_injection.shaped`) and each held-out payload of
`bench_injection_heldout.SOURCES` (`payloads_of`: those a training payload starts as are left
out) in each carrier of `injection_measure.CARRIERS`; an item keeps its kind of text
(`scan.kind_of`), its worst span's probability and whether a pattern rule
warns on it. Then, for each false-positive budget, each kind's threshold is chosen on the
measured benign text itself: the lowest that flags at most the budget of that kind's items,
counting the rules' own warnings first (`thresholds_for`). No threshold of this model can do
better on this text, so the held-out share flagged at a budget is an upper bound of what the
model reaches there. The shipped thresholds are given as one more row. Nothing is chosen or
shipped from it (the training script never reads the held-out sources); it says whether a
target can be met by calibration or needs another model.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench_injection import MEASURE_REPOS, shaped
from bench_injection_heldout import SOURCES, payloads_of, training_keys
from injection_corpora import benign_items
from injection_measure import CARRIERS, WHERE, detector_of

from rubricate.judge.detector import Detector
from rubricate.judge.scan import kind_of, scan_injection

BUDGETS = (0.005, 0.01, 0.015, 0.02, 0.03, 0.05, 0.1, 0.2)
NEVER = math.inf
"""A threshold no probability reaches."""
WHERE_KINDS = sorted({kind_of(where) for where in WHERE.values()})
"""The kinds of text the measured items are found in."""


@dataclass(frozen=True)
class Scored:
    """One item as the scan meets it: its group (repository or held-out source), kind of
    text, worst span's probability, and whether a pattern rule warns on it."""

    group: str
    kind: str
    worst: float
    ruled: bool


def scored(group: str, text: str, where: str, detector: Detector) -> Scored:
    warned = any(f.severity == "warning" for f in scan_injection(text, where))
    return Scored(group, kind_of(where), detector.worst(text)[0], warned)


def thresholds_for(benign: Sequence[Scored], budget: float) -> dict[str, float]:
    """Per kind, the lowest threshold at which at most `budget` of that kind's benign items are
    flagged, the items a rule warns on counted first (`NEVER` where the rules alone use up the
    budget)."""
    by_kind: dict[str, list[Scored]] = defaultdict(list)
    for item in benign:
        by_kind[item.kind].append(item)
    limits: dict[str, float] = {}
    for kind, items in by_kind.items():
        allowed = int(len(items) * budget) - sum(i.ruled for i in items)
        left = sorted((i.worst for i in items if not i.ruled), reverse=True)
        if allowed < 0:
            limits[kind] = NEVER
        else:
            limits[kind] = left[allowed] + 1e-9 if allowed < len(left) else 0.0
    return limits


def flagged(item: Scored, limits: Mapping[str, float]) -> bool:
    return item.ruled or item.worst >= limits.get(item.kind, NEVER)


def row(
    benign: Sequence[Scored], payloads: Sequence[Scored], limits: Mapping[str, float]
) -> dict[str, object]:
    """The shares flagged at `limits`: benign overall and per repository, held-out overall, per
    source and the lowest."""
    shares = _shares(payloads, limits)
    return {
        "thresholds": {k: round(v, 4) if v < NEVER else "never" for k, v in sorted(limits.items())},
        "false_positives": round(sum(flagged(i, limits) for i in benign) / max(len(benign), 1), 4),
        "held_out": round(sum(flagged(i, limits) for i in payloads) / max(len(payloads), 1), 3),
        "lowest_source": min(shares.values(), default=0.0),
        "sources_below_40": sorted(k for k, v in shares.items() if v < 0.4),
        "per_source": shares,
        "false_positives_per_repo": _shares(benign, limits),
    }


def _shares(items: Sequence[Scored], limits: Mapping[str, float]) -> dict[str, float]:
    """Each group's share of items flagged at `limits`."""
    per_group: dict[str, list[bool]] = defaultdict(list)
    for item in items:
        per_group[item.group].append(flagged(item, limits))
    return {k: round(sum(v) / len(v), 3) for k, v in per_group.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--weights", type=Path)
    args = parser.parse_args(argv)
    detector = detector_of(args.weights)
    sources: dict[str, str] = {}
    benign = [
        scored(repo, shaped(item), WHERE[item.carrier], detector)
        for repo in MEASURE_REPOS
        for item in benign_items(args.mirrors, repo, sources)
    ]
    payloads: list[Scored] = []
    seen = training_keys(args.mirrors)
    for name in SOURCES:
        try:
            sources[name], texts, _left_out = payloads_of(args.mirrors, name, seen)
        except SystemExit:
            continue
        payloads += [
            scored(name, embed(text), WHERE[carrier], detector)
            for carrier, embed in CARRIERS.items()
            for text in texts
        ]
        print(name, len(texts), file=sys.stderr, flush=True)
    shipped = {kind: detector.thresholds.get(kind, detector.threshold) for kind in WHERE_KINDS}
    result: dict[str, object] = {
        "detector": detector.version,
        "benign_items": len(benign),
        "held_out_items": len(payloads),
        "shipped": row(benign, payloads, shipped),
        "hindsight": {str(b): row(benign, payloads, thresholds_for(benign, b)) for b in BUDGETS},
        "sources": sources,
    }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
