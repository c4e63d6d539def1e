"""`rubricate init`: write the workflow and a starter config detected from the repository (shell).

Writes `.github/workflows/rubricate.yml` (with `--graders` and `--catch-up` also the graders and
catch-up workflows), copied from the bundled templates, and a commented `.github/rubricate.yml`
whose `deliverables:` and `graders:` entries come from what the repository holds: JSON files
beside a `*.schema.json` of the same name, JSON and YAML files whose `$schema` names a schema
file of the repository (`schema_keys`), and the test command of the project's tooling. An
existing file is never overwritten without `--force`; `--dry-run` prints and writes nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from rubricate.cli.init_steps import (
    ACTION_PLACEHOLDER,
    PIN_STEP,
    next_steps,
    project_url,
)
from rubricate.cli.safe_write import exists, refuse_symlinks, write_inside
from rubricate.cli.schema_keys import SchemaCheck, find
from rubricate.errors import ConfigError
from rubricate.evidence.file_kinds import glob_escape
from rubricate.gitio.refs import check_repository
from rubricate.rubric_sources import data_dir

EXIT_OK = 0
EXIT_EXISTS = 2
CONFIG_PATH = ".github/rubricate.yml"
WORKFLOW_DIR = ".github/workflows"
SCHEMA_SUFFIX = ".schema.json"
SKIPPED_DIRS = frozenset(
    {".git", "node_modules", ".venv", "venv", "__pycache__", "dist", "build", "target", ".tox"}
)
MAX_FILES = 50_000
ACTION_PIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}@[0-9a-f]{40}")


@dataclass(frozen=True)
class Deliverable:
    """A deliverable glob and the schema its files must match."""

    glob: str
    schema: str


@dataclass(frozen=True)
class Detected:
    """What `init` found in the repository."""

    deliverables: tuple[Deliverable, ...]
    unmatched_schemas: tuple[str, ...]
    test_command: str | None
    notes: tuple[str, ...] = ()
    """Files that name a schema init cannot check (remote, missing, not matching it today)."""
    schemas_found: int = 0
    """Schemas of the repository that files pair with (by name) or name (by `$schema`)."""
    schemas_covered: int = 0
    """Of those, the schemas with a proposed deliverable."""


def coverage_line(detected: Detected) -> str:
    """How many schemas init found and how many its proposal covers (pure)."""
    found, covered = detected.schemas_found, detected.schemas_covered
    if not found and not detected.unmatched_schemas:
        return "Schemas: none found that a file pairs with or names with $schema."
    line = f"Schemas: {found} found that files pair with or name; {covered} covered by "
    entries = len(detected.deliverables)
    line += f"{entries} proposed deliverable {'entry' if entries == 1 else 'entries'}"
    if detected.unmatched_schemas:
        line += f"; {len(detected.unmatched_schemas)} *.schema.json with no file (see the config)"
    return line + "."


def detect(paths: Iterable[str], package_json: str | None = None) -> Detected:
    """Deliverables and the test command from a repository's file paths (pure)."""
    files = sorted(set(paths))
    json_files = [p for p in files if p.endswith(".json") and not p.endswith(SCHEMA_SUFFIX)]
    deliverables: list[Deliverable] = []
    unmatched: list[str] = []
    for schema in (p for p in files if p.endswith(SCHEMA_SUFFIX)):
        stem = schema.rsplit("/", 1)[-1][: -len(SCHEMA_SUFFIX)]
        found = [p for p in json_files if p.rsplit("/", 1)[-1] == f"{stem}.json"]
        if found:
            deliverables.extend(Deliverable(glob=p, schema=schema) for p in found)
        else:
            unmatched.append(schema)
    return Detected(tuple(deliverables), tuple(unmatched), _test_command(set(files), package_json))


def _test_command(files: set[str], package_json: str | None) -> str | None:
    python_markers = {"pyproject.toml", "setup.cfg", "pytest.ini", "setup.py", "tox.ini"}
    if files & python_markers or any(p.startswith("tests/") for p in files):
        return "pytest -q"
    if package_json is not None and _has_test_script(package_json):
        return "npm test"
    if "go.mod" in files:
        return "go test ./..."
    if "Cargo.toml" in files:
        return "cargo test"
    return None


def _has_test_script(text: str) -> bool:
    try:
        data = json.loads(text)
    except ValueError:
        return False
    scripts = data.get("scripts") if isinstance(data, dict) else None
    return isinstance(scripts, dict) and isinstance(scripts.get("test"), str)


def render_config(detected: Detected, *, active: bool = False) -> str:
    """The starter config; detected entries are commented out unless `active` (pure)."""
    mark = "" if active else "# "
    lines = [
        "# rubricate config: every key is optional (docs/config.md lists them all).",
        "# Check it with: rubricate validate .github/rubricate.yml",
        "rubric: agora-v3",
        "",
    ]
    if detected.deliverables:
        lines += [
            "# Deliverables named like a schema or naming it with $schema; uncomment to check.",
            f"{mark}deliverables:",
        ]
        for item in detected.deliverables:
            lines += [
                f"{mark}  - glob: {json.dumps(item.glob)}",
                f"{mark}    schema: {_scalar(item.schema)}",
                f"{mark}    required: false",
            ]
    else:
        lines.append("# No JSON file is named like a schema or names one with $schema.")
    for schema in detected.unmatched_schemas:
        lines.append(
            _comment(f"Schema with no matching NAME.json file: {schema} (add a glob for it)")
        )
    lines += [_comment(f"Not proposed: {note}") for note in detected.notes]
    lines.append("")
    if detected.test_command:
        lines += [
            "# The test command this repository uses, as a grader of verifiability; it runs",
            "# only in the unprivileged graders workflow (rubricate init --graders) or locally.",
            f"{mark}graders:",
            f"{mark}  - id: tests",
            f"{mark}    run: {detected.test_command}",
            f"{mark}    criterion: verifiability",
            f"{mark}    timeout: 300",
        ]
    else:
        lines.append("# No test command recognized (pytest, npm test, go test, cargo test).")
    return "\n".join(lines) + "\n"


def _comment(text: str, limit: int = 300) -> str:
    """One YAML comment line: a file name or an error can hold no line break to end it."""
    flat = "".join(c if c.isprintable() else "?" for c in " ".join(text.split()))
    return "# " + (flat if len(flat) <= limit else flat[: limit - 3] + "...")


def _scalar(text: str) -> str:
    """A path as a YAML scalar: bare when plainly safe, else JSON-quoted."""
    return text if re.fullmatch(r"[\w.][\w./-]*", text) else json.dumps(text)


def plan(
    detected: Detected, templates: dict[str, str], action: str | None = None
) -> dict[str, str]:
    """Every file `init` writes, by path relative to the repository root (pure).

    `action` (`OWNER/REPO@SHA`) replaces the templates' placeholder pin.
    """
    files = {
        f"{WORKFLOW_DIR}/{name}": text.replace(ACTION_PLACEHOLDER, action) if action else text
        for name, text in templates.items()
    }
    files[CONFIG_PATH] = render_config(detected)
    return files


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `rubricate init`."""
    parser = subparsers.add_parser(
        "init",
        help="write the workflow and a starter config",
        description=(
            "Write .github/workflows/rubricate.yml and a commented .github/rubricate.yml "
            "detected from the repository. Never overwrites a file without --force (exit 2)."
        ),
    )
    parser.add_argument("--repo", default=".", metavar="DIR", help="repository root (default: .)")
    parser.add_argument("--dry-run", action="store_true", help="print the files; write nothing")
    parser.add_argument("--force", action="store_true", help="overwrite existing files")
    parser.add_argument("--graders", action="store_true", help="also write graders.yml")
    parser.add_argument("--catch-up", action="store_true", help="also write catch-up.yml")
    parser.add_argument(
        "--action",
        metavar="OWNER/REPO@SHA",
        help="pin the workflows' rubricate step to this repository and full commit SHA",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Detect, then print or write the files; refuse to overwrite without --force."""
    root = check_repository(args.repo)
    if args.action is not None and not ACTION_PIN.fullmatch(args.action):
        raise ConfigError(
            f"--action {args.action!r}: expected OWNER/REPO@SHA with a full 40-character commit SHA"
        )
    names = ["rubricate.yml"]
    names += ["graders.yml"] if args.graders else []
    names += ["catch-up.yml"] if args.catch_up else []
    detected = _detect_tree(root)
    files = plan(detected, {name: _template(name) for name in names}, args.action)
    refuse_symlinks(root, list(files))
    existing = [path for path in files if exists(root, path)]
    if existing and not args.force and not args.dry_run:
        for path in existing:
            print(
                f"rubricate: error: {root / path} exists (use --force to overwrite)",
                file=sys.stderr,
            )
        return EXIT_EXISTS
    for path, text in files.items():
        if args.dry_run:
            note = " (exists; --force would overwrite it)" if path in existing else ""
            print(f"--- would write {root / path}{note}\n{text}")
            continue
        print(f"wrote {write_inside(root, path, text)}")
    print()
    print(coverage_line(detected))
    steps = next_steps(args.action, project_url())
    print("Next steps:\n" + ("" if args.action else PIN_STEP) + steps, end="")
    return EXIT_OK


def _detect_tree(root: Path) -> Detected:
    paths: list[str] = []
    for directory, subdirs, names in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if d not in SKIPPED_DIRS)
        base = Path(directory).relative_to(root).as_posix()
        paths += [name if base == "." else f"{base}/{name}" for name in names]
        if len(paths) > MAX_FILES:
            break
    package = root / "package.json"
    text = package.read_text(encoding="utf-8", errors="replace") if package.is_file() else None
    return with_schema_keys(detect(paths, text), root, paths)


def with_schema_keys(detected: Detected, root: Path, paths: list[str]) -> Detected:
    """The detected entries and those of files that name their schema with `$schema`."""
    found = find(root, paths)
    named = {schema for _, schema in found.deliverables}
    paired, notes = _pairs_that_match(
        root, [d for d in detected.deliverables if d.glob not in found.keyed]
    )
    pair_schemas = {d.schema for d in detected.deliverables if d.glob not in found.keyed}
    return dataclasses.replace(
        detected,
        deliverables=(*paired, *(Deliverable(*item) for item in found.deliverables)),
        unmatched_schemas=tuple(s for s in detected.unmatched_schemas if s not in named),
        notes=(*notes, *found.notes),
        schemas_found=len(pair_schemas - named) + found.schemas,
        schemas_covered=len({d.schema for d in paired} - named) + found.covered,
    )


def _pairs_that_match(root: Path, pairs: list[Deliverable]) -> tuple[list[Deliverable], list[str]]:
    """The name pairs whose file matches its schema today; a note names each other one."""
    checks = {schema: SchemaCheck(root, schema, {}) for schema in {p.schema for p in pairs}}
    kept = [pair for pair in pairs if checks[pair.schema].valid(pair.glob)]
    notes = [note for schema in sorted(checks) for note in checks[schema].notes]
    escaped = [Deliverable(glob_escape(pair.glob), pair.schema) for pair in kept]
    return escaped, notes + [
        f"{p.glob} is named like {p.schema} but does not match it" for p in pairs if p not in kept
    ]


def _template(name: str) -> str:
    directory = data_dir("workflows", "examples/workflows")
    if directory is None or not (directory / name).is_file():
        raise ConfigError(f"the bundled workflow template {name} is missing from this install")
    return (directory / name).read_text(encoding="utf-8")
