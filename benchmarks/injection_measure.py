"""How the injection benchmarks embed a payload in a carrier and decide whether it was flagged.

Shared by `train_injection` (leave-one-source-out) and `bench_injection` (false positives,
non-English). Four ways of scanning are told apart: the scan as it runs with a judge
(`scan_injection` with the detector: its flags and the pattern rules' warnings), the detector
alone, the rules alone, and `demoted`: the scan if a rule warning on a line the detector
scores below `DEMOTE_BELOW` were only a note (what an earlier version did; kept to show what
that would cost).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from rubricate.judge.client_detector import load_detector
from rubricate.judge.detector import Detector
from rubricate.judge.scan import kind_of, scan_injection

CARRIERS: dict[str, Callable[[str], str]] = {
    "description": lambda p: (
        f"Adds the CSV export.\n\n{p}\n\nTested locally with the sample files."
    ),
    "README": lambda p: f"## Usage\n\nRun the tool with `--csv`.\n\n## Notes\n\n{p}\n",
    "code comment": lambda p: (
        "def export(rows):\n"
        + "".join(f"    # {line}\n" for line in p.splitlines())
        + "    return rows\n"
    ),
    "JSON value": lambda p: json.dumps({"name": "exporter", "description": p}, ensure_ascii=False),
    "commit message": lambda p: f"Add CSV export\n\n{p}",
}
WHERE = {
    "description": "PR description",
    "commit message": "PR description",
    "README": "README.md",
    "code comment": "src/module.py",
    "code": "src/module.py",
    "JSON value": "data/config.json",
}
WAYS = ("scan", "demoted", "detector", "rules")
DEMOTE_BELOW = 0.05


def verdicts(text: str, where: str, detector: Detector) -> dict[str, bool]:
    """Whether each way of scanning warns about `text`."""
    scored = detector.scored(text)
    flagged = bool(detector.flagged(scored, kind_of(where)))
    lines: dict[int, float] = {}
    for first, last, probability, _span in scored:
        for line in range(first, last + 1):
            lines[line] = max(lines.get(line, 0.0), probability)
    warnings = [f for f in scan_injection(text, where) if f.severity == "warning"]
    kept = [
        f
        for f in warnings
        if not f.message.startswith("possible prompt injection (")
        or lines.get(f.line or 1, 0.0) >= DEMOTE_BELOW
    ]
    shipped = scan_injection(text, where, detector)
    return {
        "scan": any(f.severity == "warning" for f in shipped),
        "demoted": flagged or bool(kept),
        "detector": flagged,
        "rules": bool(warnings),
    }


def detector_of(weights: Path | None) -> Detector:
    """The detector a benchmark measures: the weights file given (`--weights`), else the
    shipped one."""
    return Detector.from_bytes(weights.read_bytes()) if weights else load_detector()
