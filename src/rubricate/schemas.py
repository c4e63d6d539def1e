"""Generate the JSON Schemas of rubric, config and event files (shell: writes `schemas/`).

`python -m rubricate.schemas` writes them from the pydantic models; `--check` compares and
exits 1 when a file is stale. A test runs the same comparison.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from rubricate.config import Config
from rubricate.ledger.event import Event
from rubricate.rubric.agentv.forms import RubricFile

DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas"


def rubric_schema() -> dict[str, Any]:
    """Any of the four rubric file dialects."""
    schema = TypeAdapter(RubricFile).json_schema()
    description = "A rubricate rubric file: native, AgentV assertions, AgentV evaluator or axes."
    return _headed(schema, "rubricate rubric", description)


def config_schema() -> dict[str, Any]:
    """`.github/rubricate.yml`."""
    schema = Config.model_json_schema()
    return _headed(
        schema, "rubricate config", "The `.github/rubricate.yml` file; every key is optional."
    )


def event_schema() -> dict[str, Any]:
    """One ledger line."""
    schema = Event.model_json_schema()
    return _headed(schema, "rubricate ledger event", "One line of `ledger/YYYY-MM.jsonl`.")


def _headed(schema: dict[str, Any], title: str, description: str) -> dict[str, Any]:
    rest = {k: v for k, v in schema.items() if k not in ("title", "description")}
    return {"$schema": DRAFT, "title": title, "description": description, **rest}


GENERATORS: dict[str, Callable[[], dict[str, Any]]] = {
    "rubric.schema.json": rubric_schema,
    "config.schema.json": config_schema,
    "event.schema.json": event_schema,
}


def render(schema: dict[str, Any]) -> str:
    """The file text of a schema: stable, indented JSON."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def generated() -> dict[str, str]:
    """File name to freshly generated text."""
    return {name: render(make()) for name, make in GENERATORS.items()}


def stale(directory: Path) -> list[str]:
    """Names of schema files in `directory` that are missing or differ from the models."""
    found = []
    for name, text in generated().items():
        path = directory / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            found.append(name)
    return found


def write(directory: Path) -> list[str]:
    """Write every schema; return the names that changed."""
    changed = stale(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in generated().items():
        (directory / name).write_text(text, encoding="utf-8")
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    """Write the schemas, or with `--check` report stale ones and exit 1."""
    parser = argparse.ArgumentParser(prog="python -m rubricate.schemas", description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 when stale")
    parser.add_argument("--dir", type=Path, default=SCHEMA_DIR, help="the schemas directory")
    args = parser.parse_args(argv)
    if args.check:
        names = stale(args.dir)
        for name in names:
            print(f"{args.dir / name}: stale; run `python -m rubricate.schemas`", file=sys.stderr)
        return 1 if names else 0
    for name in write(args.dir):
        print(f"wrote {args.dir / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
