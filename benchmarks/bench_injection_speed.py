"""CPU time of scanning a 1 MB change for injections, repeated; print JSON.

    nice -n 10 python benchmarks/bench_injection_speed.py
        (--mirrors /work/.mirror | --diff FILE | --file FILE) [--repeat 5] [--pure-python]
        [--profile FILE]

With `--mirrors`, the change is `bench_injection.speed_lines` (1 MB of distinct lines of
several public repositories, as the added lines of one file); with `--file`, one file's lines
as the added lines of one file; with `--diff`, a unified diff (such as `git diff A B` of a
public repository). Each is scanned as a pull request's changes are (`scan_snapshot`: each
file's added lines, files never shown to the judge left out). Each repeat scans it with a
fresh detector (no cache from the previous repeat): the whole scan in one process
(`scan_snapshot`), the whole scan as it runs with a judge (`scan_change`: a large change on
two processes), the rules alone, the detector alone, in turn. CPU
time is user+sys time of this process and its children; with two processes the busier one's
bounds the wall time where each has a core of its own. The machine may be shared, so the
minimum and the median are both given, beside wall time and the load average. The first run
with the detector is also given alone: it includes importing numpy where the detector uses it
(a long text, numpy installed); `--pure-python` measures the detector as it runs without numpy
(as in the action, which does not install it).
`--profile` writes a cProfile of one scan with the detector.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bench_injection import speed_lines

from rubricate.evidence.snapshot import FileChange, Snapshot
from rubricate.judge import detector
from rubricate.judge.budget import exclusion_reason
from rubricate.judge.client_detector import load_detector
from rubricate.judge.detector import Detector
from rubricate.judge.scan import scan_snapshot
from rubricate.judge.scan_processes import scan_change


def diff_snapshot(path: Path) -> Snapshot:
    """The changes of a unified diff (`git diff A B`) as a snapshot's changed files."""
    changes: list[FileChange] = []
    for piece in ("\n" + path.read_text(encoding="utf-8", errors="replace")).split("\ndiff --git ")[
        1:
    ]:
        header, _, _rest = piece.partition("\n")
        hunks = piece.find("\n@@")
        if hunks >= 0:
            name = header.rpartition(" b/")[2]
            changes.append(FileChange(name, "modified", piece[hunks + 1 :]))
    return Snapshot(base_sha="", head_sha="", changes=tuple(changes))


def one_file_snapshot(path: str, lines: list[str]) -> Snapshot:
    """A change adding `lines` as the one file `path`."""
    patch = f"@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{line}\n" for line in lines)
    return Snapshot(base_sha="", head_sha="", changes=(FileChange(path, "added", patch),))


def scanned_bytes(snapshot: Snapshot) -> int:
    """The bytes of added lines the scan reads (files never shown to the judge left out)."""
    kept = [c for c in snapshot.changes if exclusion_reason(c) is None]
    return sum(len(text.encode()) + 1 for c in kept for _n, text in c.added_lines())


def timed(works: dict[str, Callable[[], object]], repeat: int) -> dict[str, dict[str, float]]:
    """Each work's CPU time (this process's and its children's user+sys), the busier of the
    two (what bounds the wall time where each has a core) and wall time, min and median; the
    works run in turn, `repeat` rounds."""
    runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in works}
    for _ in range(repeat):
        for name, work in works.items():
            before, clock = os.times(), time.perf_counter()
            work()
            wall, after = time.perf_counter() - clock, os.times()
            own = after.user + after.system - before.user - before.system
            children = after.children_user + after.children_system
            children -= before.children_user + before.children_system
            runs[name].append((own + children, max(own, children), wall))
    return {name: _summary(found) for name, found in runs.items()}


def _summary(runs: list[tuple[float, float, float]]) -> dict[str, float]:
    found: dict[str, float] = {}
    for index, what in enumerate(("cpu", "busiest_process_cpu", "wall")):
        values = [run[index] for run in runs]
        found[f"{what}_min"] = round(min(values), 3)
        found[f"{what}_median"] = round(statistics.median(values), 3)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--mirrors", type=Path, help="the mirrors of `bench_injection`")
    source.add_argument("--diff", type=Path, help="a unified diff to scan as a change")
    source.add_argument("--file", type=Path, help="one file to scan as a change adding it")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--pure-python", action="store_true", help="never use numpy")
    parser.add_argument("--profile", type=Path, help="write a cProfile of one full scan here")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.pure_python:
        detector.NUMPY_TOKENS = sys.maxsize
    shipped = load_detector()

    def fresh() -> Detector:
        return Detector(
            shipped.weights, shipped.bias, shipped.threshold, thresholds=shipped.thresholds
        )

    origin: dict[str, object]
    if args.diff:
        if not args.diff.is_file():
            parser.error(f"--diff: no such file: {args.diff}")
        snapshot = diff_snapshot(args.diff)
        origin = {"diff": str(args.diff), "files": len(snapshot.changes)}
    elif args.file:
        if not args.file.is_file():
            parser.error(f"--file: no such file: {args.file}")
        lines = args.file.read_text(encoding="utf-8", errors="replace").splitlines()
        snapshot = one_file_snapshot(args.file.name, lines)
        origin = {"file": str(args.file), "lines": len(lines)}
    else:
        numbered, used = speed_lines(args.mirrors)
        snapshot = one_file_snapshot("src/big.py", [line for _n, line in numbered])
        origin = {"lines": len(numbered), "repos": used}
    size = scanned_bytes(snapshot)
    texts = [c.added_text for c in snapshot.changes if exclusion_reason(c) is None]

    def scan(model: Detector | None) -> object:
        return scan_snapshot(snapshot, model)

    def two_processes(model: Detector | None) -> object:
        return scan_change(snapshot, model)

    def detect() -> object:
        model = fresh()
        return [model.scored(text) for text in texts]

    first = timed({"first": lambda: scan(fresh())}, 1)["first"]
    works: dict[str, Callable[[], object]] = {
        "with_detector": lambda: scan(fresh()),
        "with_detector_two_processes": lambda: two_processes(fresh()),
        "rules_only": lambda: scan(None),
        "detector_only": detect,
    }
    result: dict[str, object] = {
        "detector": shipped.version,
        "bytes": size,
        **origin,
        "numpy_used": "rubricate.judge.detector_numpy" in sys.modules,
        "first_with_detector_cpu": first["cpu_min"],
        **timed(works, args.repeat),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    result["two_processes_same_findings"] = two_processes(fresh()) == scan(fresh())
    if args.profile:
        cProfile.runctx("scan(fresh())", {"scan": scan, "fresh": fresh}, {}, str(args.profile))
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
