"""Benchmark the action's start: a cold install, and `rubricate action --dry-run` (prints JSON).

1. Build rubricate's wheel here (uv build, else pip wheel).
2. Run action.yml's own `install` step into an empty virtual environment with an empty package
   cache, once with uv and once with the pip fallback: wall seconds each (downloads included).
3. Run `rubricate action --dry-run` from that environment on the bundled pull_request event with
   no token: wall and process (user + system CPU) seconds, median of several runs, and whether
   `openai` was imported (`python -X importtime`).

Usage: python benchmarks/bench_install.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "action" / "fixtures" / "pull_request.opened.json"
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
NETWORK_SETTINGS = (
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "PIP_CERT",
    "PIP_INDEX_URL",
    "PIP_DEFAULT_TIMEOUT",
    "UV_INDEX_URL",
    "UV_DEFAULT_INDEX",
    "UV_NATIVE_TLS",
)


def tool(name: str) -> str | None:
    """An executable beside this interpreter, else on PATH."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else shutil.which(name)


def build_wheel(dest: Path) -> Path:
    """rubricate's wheel, built from this checkout."""
    uv = tool("uv")
    if uv:
        args = [uv, "build", "--wheel", "--quiet", "--out-dir", str(dest), str(ROOT)]
    else:
        args = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dest), str(ROOT)]
    subprocess.run(args, check=True, capture_output=True)
    return sorted(dest.glob("rubricate-*.whl"))[-1]


def install_script() -> str:
    """The `run:` script of action.yml's install step."""
    steps = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["runs"]["steps"]
    return str(next(s for s in steps if s.get("id") == "install")["run"])


def network_env() -> dict[str, str]:
    """The machine's certificate, proxy and index settings, as a runner would have them."""
    return {
        key: value
        for key, value in os.environ.items()
        if key in NETWORK_SETTINGS or key.lower().endswith("_proxy")
    }


def cold_install(tmp: Path, wheel: Path, *, with_uv: bool) -> dict[str, Any]:
    """Run the install step into an empty venv with an empty cache; wall seconds."""
    bins = tmp / "bin"
    bins.mkdir(parents=True)
    base_python = Path(getattr(sys, "_base_executable", sys.executable)).resolve()
    (bins / "python3").symlink_to(base_python)
    uv = tool("uv")
    if with_uv:
        if not uv:
            return {"error": "uv is not installed"}
        (bins / "uv").symlink_to(uv)
    env = {
        **network_env(),
        "PATH": f"{bins}:{SYSTEM_PATH}",
        "HOME": str(tmp),
        "RUBRICATE_ACTION_PATH": str(ROOT),
        "RUBRICATE_PACKAGE": str(wheel),
        "RUBRICATE_PYTHON": "python3",
        "RUBRICATE_VENV": str(tmp / "venv"),
        "UV_CACHE_DIR": str(tmp / "uv-cache"),
        "PIP_NO_CACHE_DIR": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    script = tmp / "install.sh"
    script.write_text(install_script(), encoding="utf-8")
    started = time.perf_counter()
    proc = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        return {"error": (proc.stdout + proc.stderr).strip()[-400:]}
    return {"wall_s": round(wall, 2), "venv": str(tmp / "venv")}


def dry_run_env(tmp: Path) -> dict[str, str]:
    """A runner-like environment with no token and an unreachable API."""
    return {
        "PATH": SYSTEM_PATH,
        "HOME": str(tmp),
        "GITHUB_EVENT_NAME": "pull_request_target",
        "GITHUB_EVENT_PATH": str(FIXTURE),
        "GITHUB_REPOSITORY": "example-org/rubricate-self-test",
        "GITHUB_API_URL": "http://127.0.0.1:9",
        "GITHUB_SERVER_URL": "http://127.0.0.1:9",
        "GITHUB_OUTPUT": str(tmp / "output"),
        "GITHUB_RUN_ID": "1",
        "INPUT_DRY-RUN": "true",
    }


def output_names(path: Path) -> list[str]:
    """The output names a run wrote to its `$GITHUB_OUTPUT` file."""
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.split("<<", 1)[0] for line in lines if "<<ghadelimiter_" in line]


def timed_dry_run(python: Path, env: dict[str, str]) -> tuple[float, float, int]:
    """Wall and process seconds of one dry run, and its exit code."""
    Path(env["GITHUB_OUTPUT"]).unlink(missing_ok=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(
        [str(python), "-m", "rubricate", "action", "--dry-run"],
        env=env,
        capture_output=True,
        check=False,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.returncode


def imported_modules(python: Path, env: dict[str, str]) -> set[str]:
    """Top-level packages a dry run imports, from `python -X importtime`."""
    proc = subprocess.run(
        [str(python), "-X", "importtime", "-m", "rubricate", "action", "--dry-run"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    names = set()
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    return names


def dry_run(venv: Path, tmp: Path, runs: int) -> dict[str, Any]:
    """Median wall and process time of `rubricate action --dry-run`, and the openai check."""
    python = venv / "bin" / "python"
    env = dry_run_env(tmp)
    results = [timed_dry_run(python, env) for _ in range(runs)]
    codes = sorted({code for _, _, code in results})
    written = output_names(tmp / "output")
    modules = imported_modules(python, env)
    cpu = statistics.median(c for _, c, _ in results)
    return {
        "runs": runs,
        "exit_codes": codes,
        "wall_s_median": round(statistics.median(w for w, _, _ in results), 3),
        "process_s_median": round(cpu, 3),
        "under_1s_process": cpu < 1.0,
        "openai_imported": "openai" in modules,
        "github_imported": "github" in modules,
        "outputs_written": written,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rubricate-bench-install-") as name:
        tmp = Path(name)
        wheel = build_wheel(tmp / "dist")
        report: dict[str, Any] = {"wheel": wheel.name, "python": sys.version.split()[0]}
        report["cold_install_uv"] = cold_install(tmp / "uv", wheel, with_uv=True)
        report["cold_install_pip"] = cold_install(tmp / "pip", wheel, with_uv=False)
        venv = next(
            (
                Path(r["venv"])
                for r in (report["cold_install_uv"], report["cold_install_pip"])
                if "venv" in r
            ),
            None,
        )
        if venv is None:
            report["dry_run"] = {"error": "no environment was installed"}
        else:
            (tmp / "run").mkdir()
            report["dry_run"] = dry_run(venv, tmp / "run", args.runs)
        for entry in report.values():
            if isinstance(entry, dict):
                entry.pop("venv", None)
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    os.umask(0o022)
    main()
