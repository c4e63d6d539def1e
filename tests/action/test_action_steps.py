"""The composite action's steps, run as shell outside GitHub against a wheel built here.

The install test builds rubricate's wheel, packs the locked dependencies installed in this
interpreter into an offline wheelhouse, and runs the `prepare`, `install` and `run` steps of
action.yml with a temporary `$GITHUB_OUTPUT`, with uv and with the pip fallback. Building the
wheel needs the build backend (hatchling) from uv's cache or the package index; without it the
slow tests skip.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.action.composite import CompositeRunner, action_inputs, parse_outputs
from tests.action.wheelhouse import build_wheelhouse, locked_names
from tests.action.workflow_files import FIXTURE, ROOT, tool

SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
PAYLOAD = json.loads(FIXTURE.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Kit:
    """A built wheel, an offline wheelhouse and an action directory whose lock pins it."""

    tmp: Path
    wheel: Path
    wheelhouse: Path
    action_dir: Path


def base_python() -> Path:
    """The interpreter under this test run's virtual environment."""
    return Path(getattr(sys, "_base_executable", sys.executable)).resolve()


def make_action_dir(dest: Path, lock: str) -> Path:
    """A stand-in for `github.action_path`: pyproject.toml and a lock."""
    (dest / "requirements").mkdir(parents=True)
    (dest / "requirements" / "action.lock").write_text(lock, encoding="utf-8")
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")
    return dest


def build_wheel(dest: Path) -> Path:
    """rubricate's wheel, built with uv (else pip); skip when no build backend can be had."""
    uv = tool("uv")
    if uv is not None:
        args = [uv, "build", "--wheel", "--quiet", "--out-dir", str(dest), str(ROOT)]
    else:
        args = [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "-w",
            str(dest),
            str(ROOT),
        ]
    proc = subprocess.run(args, capture_output=True, text=True, check=False, timeout=300)
    wheels = sorted(dest.glob("rubricate-*.whl"))
    if proc.returncode != 0 or not wheels:
        pytest.skip(f"cannot build the wheel here: {proc.stderr.strip()[-300:]}")
    return wheels[-1]


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Kit:
    tmp = tmp_path_factory.mktemp("action-install")
    wheel = build_wheel(tmp / "dist")
    names = locked_names((ROOT / "requirements" / "action.lock").read_text(encoding="utf-8"))
    lock = build_wheelhouse(names, tmp / "wheelhouse")
    return Kit(tmp, wheel, tmp / "wheelhouse", make_action_dir(tmp / "action", lock))


def bin_dir(dest: Path, *, with_uv: bool) -> Path:
    """A PATH entry with `python3` (and `uv` when asked)."""
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "python3").symlink_to(base_python())
    uv = tool("uv")
    if with_uv:
        if uv is None:
            pytest.skip("uv is not installed")
        (dest / "uv").symlink_to(uv)
    elif shutil.which("uv", path=SYSTEM_PATH):
        pytest.skip("uv is on the system PATH, so the pip fallback cannot be shown")
    return dest


def runner(
    tmp: Path, bins: Path, action_dir: Path, wheelhouse: Path, **inputs: str
) -> CompositeRunner:
    """A runner with an offline, loopback-only environment like a hosted runner's."""
    work = tmp / "work"
    for name in ("work", "runner-temp", "home", "uv-cache"):
        (tmp / name).mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": f"{bins}:{SYSTEM_PATH}",
        "HOME": str(tmp / "home"),
        "RUNNER_TEMP": str(tmp / "runner-temp"),
        "RUNNER_OS": "Linux",
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(work),
        "GITHUB_STEP_SUMMARY": str(tmp / "summary.md"),
        "GITHUB_REPOSITORY": PAYLOAD["repository"]["full_name"],
        "GITHUB_RUN_ID": "1",
        "GITHUB_EVENT_NAME": "pull_request_target",
        "GITHUB_EVENT_PATH": str(FIXTURE),
        "GITHUB_API_URL": "http://127.0.0.1:9",
        "GITHUB_SERVER_URL": "http://127.0.0.1:9",
        "UV_OFFLINE": "1",
        "UV_NO_INDEX": "1",
        "UV_FIND_LINKS": str(wheelhouse),
        "UV_CACHE_DIR": str(tmp / "uv-cache"),
        "UV_PYTHON_DOWNLOADS": "never",
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheelhouse),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    pull = PAYLOAD["pull_request"]
    context = {
        "github.action_path": str(action_dir),
        "github.token": "",
        "github.event.pull_request.number": str(pull["number"]),
        "github.event.pull_request.base.sha": pull["base"]["sha"],
        "github.event.pull_request.head.sha": pull["head"]["sha"],
        **action_inputs(inputs),
    }
    return CompositeRunner(context, env, work)


def install(kit: Kit, name: str, *, with_uv: bool) -> tuple[CompositeRunner, str]:
    """Run `prepare` and `install`; return the runner and the install log."""
    tmp = kit.tmp / name
    bins = bin_dir(tmp / "bin", with_uv=with_uv)
    steps = runner(
        tmp,
        bins,
        kit.action_dir,
        kit.wheelhouse,
        **{"github-token": "", "dry-run": "true", "event-name": "pull_request_target"},
        **{"event-path": str(FIXTURE)},
    )
    prepared = steps.run("prepare")
    assert prepared.returncode == 0, prepared.stdout + prepared.stderr
    assert prepared.outputs["has-uv"] == ("true" if with_uv else "false")
    installed = steps.run("install", {"RUBRICATE_PACKAGE": str(kit.wheel)})
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert "::group::rubricate: install" in installed.stdout
    return steps, installed.stdout


def venv_rubricate(steps: CompositeRunner) -> Path:
    return Path(steps.context["steps.prepare.outputs.venv"]) / "bin" / "rubricate"


@pytest.fixture(scope="module")
def uv_install(kit: Kit) -> tuple[CompositeRunner, str]:
    return install(kit, "uv", with_uv=True)


@pytest.mark.slow
def test_uv_installs_and_a_dry_run_writes_the_outputs(
    uv_install: tuple[CompositeRunner, str],
) -> None:
    steps, log = uv_install
    assert "installing with uv" in log
    version = subprocess.run([venv_rubricate(steps), "--version"], capture_output=True, text=True)
    assert version.stdout.startswith("rubricate ")
    if importlib.util.find_spec("rubricate.action.main") is None:
        pytest.skip("`rubricate action` is not built yet; the install steps passed")
    ran = steps.run("run")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.outputs["verdict"] in {"pass", "fail", "incomplete"}
    assert {"verdict", "weighted-total", "normalized", "gate"} <= set(ran.outputs)


@pytest.mark.slow
def test_the_graders_command_scores_the_checked_out_pr(
    uv_install: tuple[CompositeRunner, str], tmp_path: Path
) -> None:
    steps, _ = uv_install
    repo = tmp_path / "example"
    make = subprocess.run(
        ["bash", str(ROOT / "examples" / "make-example-repo.sh"), str(repo)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert make.returncode == 0, make.stderr
    base, head = (rev_parse(repo, ref) for ref in ("main", "add-wordstats"))
    steps.workdir = repo
    steps.context.update(
        {
            "inputs.command": "graders",
            "inputs.graders-output": str(tmp_path / "out"),
            "github.event.pull_request.base.sha": base,
            "github.event.pull_request.head.sha": head,
        }
    )
    ran = steps.run("run")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    pull = json.loads((tmp_path / "out" / "pull.json").read_text(encoding="utf-8"))
    assert pull == {"pr": PAYLOAD["number"], "base_sha": base, "head_sha": head}
    statuses = {check["id"]: check["status"] for check in report["checks"]}
    assert statuses.get("grader:unit-tests") == "pass", statuses


def rev_parse(repo: Path, ref: str) -> str:
    return subprocess.run(
        ["git", "rev-parse", ref], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.mark.slow
def test_pip_is_the_fallback_without_uv(kit: Kit) -> None:
    steps, log = install(kit, "pip", with_uv=False)
    assert "uv is not available: installing with pip" in log
    version = subprocess.run([venv_rubricate(steps), "--version"], capture_output=True, text=True)
    assert version.stdout.startswith("rubricate ")


def cheap_runner(tmp_path: Path, lock: str = "pyyaml==6.0.3\n", **inputs: str) -> CompositeRunner:
    action_dir = make_action_dir(tmp_path / "action", lock)
    bins = tmp_path / "bin"
    bins.mkdir()
    (bins / "python3").symlink_to(base_python())
    return runner(tmp_path, bins, action_dir, tmp_path / "no-wheelhouse", **inputs)


def test_the_prepare_step_masks_every_line_of_each_secret(tmp_path: Path) -> None:
    steps = cheap_runner(
        tmp_path, **{"github-token": "ghs_first\nghs_second", "openai-api-key": "sk-test-123"}
    )
    prepared = steps.run("prepare")
    assert prepared.returncode == 0, prepared.stderr
    masks = [line for line in prepared.stdout.splitlines() if line.startswith("::add-mask::")]
    assert masks == ["::add-mask::ghs_first", "::add-mask::ghs_second", "::add-mask::sk-test-123"]
    assert prepared.outputs["venv"] == str(tmp_path / "runner-temp" / "rubricate-venv")


def test_the_cache_key_follows_the_lock(tmp_path: Path) -> None:
    first = cheap_runner(tmp_path / "a").run("prepare").outputs["key"]
    again = cheap_runner(tmp_path / "b").run("prepare").outputs["key"]
    other = cheap_runner(tmp_path / "c", lock="pyyaml==6.0.2\n").run("prepare").outputs["key"]
    assert first == again
    assert first != other
    assert first.startswith("rubricate-venv-v1-")


@pytest.mark.parametrize(
    ("command", "message"),
    [("bogus", "unknown command input"), ("graders", "command graders needs a pull_request")],
)
def test_a_bad_command_is_a_usage_error(tmp_path: Path, command: str, message: str) -> None:
    steps = cheap_runner(tmp_path, command=command)
    steps.context["steps.prepare.outputs.venv"] = str(tmp_path / "no-venv")
    steps.context["github.event.pull_request.base.sha"] = ""
    ran = steps.run("run")
    assert ran.returncode == 2
    assert message in ran.stdout


def test_outputs_are_read_like_the_runner_reads_them() -> None:
    text = "verdict=pass\nsummary<<EOF_1\nline one\nline=two\nEOF_1\ngate=passed\n"
    assert parse_outputs(text) == {
        "verdict": "pass",
        "summary": "line one\nline=two",
        "gate": "passed",
    }
