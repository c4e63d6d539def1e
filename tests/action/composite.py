"""Run a composite action's `run:` steps as the runner does, outside GitHub (test support only).

Each step's `env:` is evaluated against a flat context of the expressions it may use (an
unknown expression fails the test), its script runs under `bash --noprofile --norc -eo
pipefail` like a runner's `shell: bash`, and its `$GITHUB_OUTPUT` file is parsed into outputs.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.action.workflow_files import ACTION, EXPRESSION, load


@dataclass
class StepResult:
    """What one step did: its exit code, its log and its outputs."""

    returncode: int
    stdout: str
    stderr: str
    outputs: dict[str, str] = field(default_factory=dict)


def parse_outputs(text: str) -> dict[str, str]:
    """`name=value` lines and `name<<DELIMITER` blocks of a `$GITHUB_OUTPUT` file."""
    outputs: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            block = []
            for inner in lines:
                if inner == delimiter:
                    break
                block.append(inner)
            outputs[name] = "\n".join(block)
        elif "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
    return outputs


def evaluate(text: str, context: Mapping[str, str]) -> str:
    """Replace every `${{ expr }}` with its value from `context` (unknown ones raise)."""
    return EXPRESSION.sub(lambda m: evaluate(context[m.group(1)], context), text)


class CompositeRunner:
    """Runs the steps of `action.yml` by id, carrying step outputs into the context."""

    def __init__(self, context: Mapping[str, str], base_env: Mapping[str, str], workdir: Path):
        self.context = dict(context)
        self.base_env = dict(base_env)
        self.workdir = workdir
        self.steps: dict[str, dict[str, Any]] = {
            s["id"]: s for s in load(ACTION)["runs"]["steps"] if "id" in s and "run" in s
        }

    def run(self, step_id: str, env_overrides: Mapping[str, str] | None = None) -> StepResult:
        """Run one step; its outputs become `steps.<id>.outputs.<name>` for later steps."""
        step = self.steps[step_id]
        output_file = self.workdir / f"output-{step_id}"
        output_file.write_text("", encoding="utf-8")
        env = {**self.base_env, "GITHUB_OUTPUT": str(output_file)}
        env.update({k: evaluate(str(v), self.context) for k, v in step.get("env", {}).items()})
        env.update(env_overrides or {})
        script = self.workdir / f"step-{step_id}.sh"
        script.write_text(step["run"], encoding="utf-8")
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=self.workdir,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        outputs = parse_outputs(output_file.read_text(encoding="utf-8"))
        for name, value in outputs.items():
            self.context[f"steps.{step_id}.outputs.{name}"] = value
        return StepResult(proc.returncode, proc.stdout, proc.stderr, outputs)


def action_inputs(overrides: Mapping[str, str]) -> dict[str, str]:
    """`inputs.<name>` for every input: the default, or the given value."""
    inputs = load(ACTION)["inputs"]
    values = {name: str(spec.get("default", "")) for name, spec in inputs.items()}
    unknown = set(overrides) - set(values)
    assert not unknown, f"not inputs of action.yml: {sorted(unknown)}"
    values.update(overrides)
    return {f"inputs.{name}": value for name, value in values.items()}
