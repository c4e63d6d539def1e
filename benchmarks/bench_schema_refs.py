"""Validate a repository's JSON examples against schemas that `$ref` each other; prints JSON.

Made for a checkout (or bare mirror) of a repository laid out like octokit/webhooks:
`SCHEMAS/<event>/<action>.schema.json` (or `<event>/event.schema.json`) that `$ref`
`common/*.schema.json`, and `EXAMPLES/<event>/<action>[.<variant>].payload.json`. Every schema
file is read from the git tree at `--ref` through the same lazy base-tree reader as
`rubricate score`, compiled once with every `$ref` resolved, and every example is validated.
Times are wall-clock seconds: `compile_s` (read + compile + resolve all refs), `validate_s`.
Run: `python benchmarks/bench_schema_refs.py --git-dir PATH [--ref HEAD]`.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import PurePosixPath
from typing import Any

from rubricate.cli.main import Progress
from rubricate.config import Config, Deliverable
from rubricate.evidence.deliverable_schemas import CompiledSchema, compile_deliverable_schemas
from rubricate.gitio.refs import BaseTree, resolve_commit
from rubricate.gitio.run import run_git


def main() -> None:
    """Parse the arguments, run the benchmark, print JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--git-dir", required=True)
    parser.add_argument("--ref", default="HEAD")
    parser.add_argument("--schemas", default="payload-schemas/api.github.com")
    parser.add_argument("--examples", default="payload-examples/api.github.com")
    args = parser.parse_args()
    with Progress() as progress:  # on a terminal only; stdout stays JSON
        progress.step(f"compiling the schemas under {args.schemas} and validating the examples")
        result = run(args.git_dir, args.ref, args.schemas, args.examples)
    print(json.dumps(result, indent=2))


def run(git_dir: str, ref: str, schemas_dir: str, examples_dir: str) -> dict[str, Any]:
    """Compile every schema once, validate every example, and count what happened."""
    commit = resolve_commit(git_dir, ref)
    names = run_git(["ls-tree", "-r", "--name-only", commit], git_dir).stdout.decode().split("\n")
    schema_files = sorted(
        n for n in names if n.startswith(schemas_dir + "/") and "/common/" not in n
    )
    examples = sorted(n for n in names if n.startswith(examples_dir + "/") and n.endswith(".json"))
    tree = BaseTree(git_dir, commit)
    start = time.perf_counter()
    config = Config(deliverables=tuple(Deliverable(glob="x", schema=s) for s in schema_files))
    compiled = compile_deliverable_schemas(config, tree)
    compile_s = time.perf_counter() - start
    by_path = {schema_files[i]: c for i, c in compiled.items()}
    start = time.perf_counter()
    tally = _validate(tree, examples, schemas_dir, examples_dir, by_path)
    validate_s = time.perf_counter() - start
    return {
        "commit": commit,
        "python": platform.python_version(),
        "schemas": len(schema_files),
        "files_read": len(tree),
        "compile_s": round(compile_s, 3),
        "validate_s": round(validate_s, 3),
        **tally,
    }


def _validate(
    tree: BaseTree,
    examples: list[str],
    schemas_dir: str,
    examples_dir: str,
    by_path: dict[str, CompiledSchema],
) -> dict[str, Any]:
    valid = invalid = unmatched = 0
    first_errors: list[str] = []
    for example in examples:
        schema = by_path.get(_schema_for(example, schemas_dir, examples_dir, by_path))
        if schema is None:
            unmatched += 1
            continue
        issues = schema.issues(json.loads(tree[example]))
        if issues:
            invalid += 1
            if len(first_errors) < 5:
                first_errors.append(f"{example}: {issues[0].pointer}: {issues[0].message[:120]}")
        else:
            valid += 1
    return {
        "examples": len(examples),
        "valid": valid,
        "invalid": invalid,
        "no_schema": unmatched,
        "first_errors": first_errors,
    }


def _schema_for(
    example: str, schemas_dir: str, examples_dir: str, known: dict[str, CompiledSchema]
) -> str:
    relative = PurePosixPath(example).relative_to(examples_dir)
    event = relative.parent.as_posix()
    action = relative.name.split(".")[0]
    named = f"{schemas_dir}/{event}/{action}.schema.json"
    return named if named in known else f"{schemas_dir}/{event}/event.schema.json"


if __name__ == "__main__":
    main()
