"""CPU of a cold rubricate process: imports, `--help`, `score` on the example, a dry run (JSON).

Cases: a bare interpreter; `import jsonschema`; `import rubricate.evidence.format_check`;
`rubricate --help`; `rubricate score --repo EXAMPLE_DIR` (text and `--format json`); `rubricate
action --dry-run` on the bundled pull_request event; each package of jsonschema's format-nongpl
extra imported alone (`import_fqdn`, …, `import_rfc3987_syntax`).

    python benchmarks/bench_startup.py EXAMPLE_DIR [--python PY] [--runs N] [--only A,B]

EXAMPLE_DIR is a repository built by `examples/make-example-repo.sh` (built there when absent).
PY is the interpreter of the install to measure (default: this one); its `rubricate` package is
the one run. Each case runs N times as a fresh process; the JSON gives the median and the least
of user+sys CPU seconds (the process and its children: git included) and of wall seconds, the
exit codes, the load average before and after, and the ten largest cumulative imports of one
more run under `python -X importtime` (microseconds, as Python prints them). Bytecode is
written first (`compileall`), as a normal `pip install` leaves it, so no run compiles sources.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_install import dry_run_env

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE_SCRIPT = ROOT / "examples" / "make-example-repo.sh"
FORMAT_PACKAGES = (
    "fqdn",
    "idna",
    "isoduration",
    "jsonpointer",
    "rfc3339_validator",
    "rfc3986_validator",
    "uri_template",
    "webcolors",
    "rfc3987_syntax",
)
"""The packages of jsonschema's format-nongpl extra: each import is a case (exit 1: absent)."""


def cases(example: Path) -> dict[str, list[str]]:
    """Each case's command line after `python` (`action_dry_run` runs in a runner-like
    environment with no token and an unreachable API, as `bench_install.py` runs it)."""
    cli = ["-m", "rubricate"]
    return {
        "python_bare": ["-c", "pass"],
        "import_jsonschema": ["-c", "import jsonschema"],
        "import_format_check": ["-c", "import rubricate.evidence.format_check"],
        "help": [*cli, "--help"],
        "score_example": [*cli, "score", "--repo", str(example)],
        "score_example_json": [*cli, "score", "--repo", str(example), "--format", "json"],
        "action_dry_run": [*cli, "action", "--dry-run"],
        **{f"import_{name}": ["-c", f"import {name}"] for name in FORMAT_PACKAGES},
    }


def timed(python: str, args: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Wall and user+sys CPU seconds of one run (its children included), and its exit code."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run([python, *args], env=env, capture_output=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.returncode


def top_imports(python: str, args: list[str], env: dict[str, str], count: int = 10) -> list[Any]:
    """The `count` largest cumulative import times of one run: [microseconds, module]."""
    proc = subprocess.run(
        [python, "-X", "importtime", *args], env=env, capture_output=True, text=True, check=False
    )
    rows = []
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            _, cumulative, name = line.split("|")
            if cumulative.strip().isdigit():
                rows.append([int(cumulative), name.strip()])
    rows.sort(reverse=True)
    return rows[:count]


def measure(python: str, args: list[str], env: dict[str, str], runs: int) -> dict[str, Any]:
    """Median and least CPU and wall of `runs` runs, exit codes and the largest imports."""
    results = [timed(python, args, env) for _ in range(runs)]
    cpu = [c for _, c, _ in results]
    wall = [w for w, _, _ in results]
    return {
        "cpu_s_median": round(statistics.median(cpu), 3),
        "cpu_s_min": round(min(cpu), 3),
        "wall_s_median": round(statistics.median(wall), 3),
        "exit_codes": sorted({code for _, _, code in results}),
        "top_imports_us": top_imports(python, args, env),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("example", type=Path, help="an example repository (built when absent)")
    parser.add_argument("--python", default=sys.executable, help="the install's interpreter")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", default="", help="only these cases (comma-separated)")
    args = parser.parse_args(argv)
    if not args.example.exists():
        subprocess.run(
            ["bash", str(EXAMPLE_SCRIPT), str(args.example)], check=True, stdout=sys.stderr
        )
    compiled = subprocess.run(
        [args.python, "-m", "compileall", "-q", "-j", "1", *site_dirs(args.python)],
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""},
        capture_output=True,
        check=False,
    )
    all_cases = cases(args.example)
    chosen = [n for n in args.only.split(",") if n] or list(all_cases)
    unknown = sorted(set(chosen) - set(all_cases))
    if unknown:
        print(f"error: no case named {', '.join(unknown)}", file=sys.stderr)
        return 2
    plain = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    load_before = os.getloadavg()[0]
    result = {}
    with tempfile.TemporaryDirectory() as tmp:
        action_env = {**dry_run_env(Path(tmp)), "PATH": os.environ.get("PATH", "")}
        for name in chosen:
            env = action_env if name == "action_dry_run" else plain
            result[name] = measure(args.python, all_cases[name], env, args.runs)
    print(
        json.dumps(
            {
                "python": args.python,
                "runs": args.runs,
                "bytecode_compiled": compiled.returncode == 0,
                "load_average_before_after": [round(load_before, 2), round(os.getloadavg()[0], 2)],
                "cases": result,
            },
            indent=2,
        )
    )
    return 0


def site_dirs(python: str) -> list[str]:
    """The install's site-packages and rubricate's own source folder."""
    code = (
        "import os, site, rubricate\n"
        "print(*site.getsitepackages(), os.path.dirname(rubricate.__file__), sep='\\n')"
    )
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
    return [line for line in out.stdout.splitlines() if line]


if __name__ == "__main__":
    raise SystemExit(main())
