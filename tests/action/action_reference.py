"""docs/action.md's generated tables: every input and output of action.yml, and the permissions
each job of each template asks for (with the reason its comment gives).
`python -m tests.action.action_reference` rewrites them in place."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "action.md"
TEMPLATES = ROOT / "examples" / "workflows"
BEGIN, END = "<!-- generated: {name} -->", "<!-- end: {name} -->"


def _flat(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def inputs_table() -> str:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    rows = [
        f"| `{name}` | {_default(spec.get('default'))} | {_flat(spec.get('description', ''))} |"
        for name, spec in action["inputs"].items()
    ]
    return "\n".join(["| input | default | what it does |", "|---|---|---|", *rows])


def _default(value: object) -> str:
    return f"`{value}`" if value else "(empty)"


def outputs_table() -> str:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    rows = [f"| `{n}` | {_flat(s.get('description', ''))} |" for n, s in action["outputs"].items()]
    return "\n".join(["| output | value |", "|---|---|", *rows])


def permissions_table() -> str:
    rows = []
    for path in sorted(TEMPLATES.glob("*.yml")):
        text = path.read_text(encoding="utf-8")
        jobs = yaml.safe_load(text)["jobs"]
        for job, spec in jobs.items():
            granted = spec.get("permissions") or {}
            why = dict(
                re.findall(r"^\s+([a-z-]+): (?:read|write) # (.*)$", _job_text(text, job), re.M)
            )
            cells = "<br>".join(
                f"`{scope}: {level}`" + (f" ({why[scope]})" if scope in why else "")
                for scope, level in granted.items()
            )
            rows.append(f"| `{path.name}` | `{job}` | {cells or 'none'} |")
    return "\n".join(["| template | job | permissions (and why) |", "|---|---|---|", *rows])


def _job_text(text: str, job: str) -> str:
    """The lines of one job in a workflow file."""
    start = re.search(rf"^  {re.escape(job)}:\s*$", text, re.M)
    if start is None:
        return ""
    rest = text[start.end() :]
    end = re.search(r"^  [A-Za-z0-9_-]+:\s*$", rest, re.M)
    return rest[: end.start()] if end else rest


SECTIONS = {"inputs": inputs_table, "outputs": outputs_table, "permissions": permissions_table}


def regenerate(text: str) -> str:
    """`text` with each generated section replaced by its current table."""
    for name, make in SECTIONS.items():
        begin, end = BEGIN.format(name=name), END.format(name=name)
        head, _, rest = text.partition(begin)
        _, _, tail = rest.partition(end)
        text = f"{head}{begin}\n{make()}\n{end}{tail}"
    return text


if __name__ == "__main__":
    DOC.write_text(regenerate(DOC.read_text(encoding="utf-8")), encoding="utf-8")
