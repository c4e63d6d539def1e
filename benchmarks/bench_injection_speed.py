"""CPU time of scanning a 1 MB change for injections, repeated; print JSON.

    nice -n 10 python benchmarks/bench_injection_speed.py --mirrors /work/.mirror [--repeat 5]
        [--profile FILE]

The change is `bench_injection.speed_lines` (1 MB of distinct lines of several public
repositories, as added lines of one file). Each repeat scans it with a fresh detector (no
cache from the previous repeat): the whole scan as it runs with a judge, the rules alone, the
detector alone. CPU time is the process's user+sys time; the machine may be shared, so the
minimum and the median are both given, beside wall time and the load average.
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

from rubricate.judge.client_detector import load_detector
from rubricate.judge.detector import Detector
from rubricate.judge.scan import scan_lines


def timed(work: Callable[[], object], repeat: int) -> dict[str, float]:
    cpu: list[float] = []
    wall: list[float] = []
    for _ in range(repeat):
        started, clock = time.process_time(), time.perf_counter()
        work()
        cpu.append(time.process_time() - started)
        wall.append(time.perf_counter() - clock)
    return {
        "cpu_min": round(min(cpu), 3),
        "cpu_median": round(statistics.median(cpu), 3),
        "wall_median": round(statistics.median(wall), 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profile", type=Path, help="write a cProfile of one full scan here")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    lines, used = speed_lines(args.mirrors)
    text = "\n".join(line for _n, line in lines)
    shipped = load_detector()

    def fresh() -> Detector:
        return Detector(shipped.weights, shipped.bias, shipped.threshold)

    result: dict[str, object] = {
        "detector": shipped.version,
        "bytes": len(text.encode()) + 1,
        "lines": len(lines),
        "repos": used,
        "with_detector": timed(lambda: scan_lines(lines, "src/big.py", fresh()), args.repeat),
        "rules_only": timed(lambda: scan_lines(lines, "src/big.py"), args.repeat),
        "detector_only": timed(lambda: fresh().scored(text), args.repeat),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    if args.profile:
        cProfile.runctx(
            "scan_lines(lines, 'src/big.py', fresh())",
            {"scan_lines": scan_lines, "lines": lines, "fresh": fresh},
            {},
            str(args.profile),
        )
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
