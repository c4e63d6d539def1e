"""Benchmark `rubricate score` on generated changes of 100, 1,000 and 5,000 files; prints JSON.

Each generated repository has a base commit (config, rubric default, JSON Schemas) and a head
commit that adds N files: a third JSON deliverables validated against a schema, a third Python
(sources and tests), a third markdown. A last run has 5,000 files of which exactly 50 are
schema-validated deliverables, and a run of 5,000 files whose base carries `.gitattributes`
(root and nested, untouched by the change) that mark part of them generated or `-diff`, so the
attribute lookup (`git check-attr` over every changed path) is timed too. Times are wall-clock
seconds, best of `--repeat` runs: `git_s` (reading config and snapshot with git), `check_s`
(auto_score), `render_s` (markdown + JSON) and `total_s` (all of it); `cpu_s` is the CPU time
of the whole scoring, git included.
Run: `python benchmarks/bench_score.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rubricate.cli.main import Progress
from rubricate.cli.rubric_cmd import resolve_rubric
from rubricate.config import CONFIG_PATH, load_config
from rubricate.evidence.autoscore import auto_score
from rubricate.evidence.deliverable_schemas import schema_paths
from rubricate.evidence.render import render_markdown
from rubricate.evidence.results import report_json
from rubricate.gitio.read import read_snapshot
from rubricate.gitio.refs import read_commit_log, read_file_at

SCHEMA_COUNT = 5
CONFIG = """\
deliverables:
  - glob: "out/*.json"
    schema: schemas/result-{n}.schema.json
"""
SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["id", "name", "score", "tags", "created"],
    "properties": {
        "id": {"type": "integer", "minimum": 0},
        "name": {"type": "string", "minLength": 1},
        "score": {"type": "number", "minimum": 0, "maximum": 1},
        "tags": {"type": "array", "items": {"type": "string"}},
        "created": {"type": "string", "format": "date"},
    },
}
PYTHON = '''"""Module {i}."""


def value_{i}(x: int) -> int:
    """Return x plus {i}."""
    total = x
    for step in range(3):
        total += step
    return total + {i}
'''
TEST = """from pkg.mod_{i} import value_{i}


def test_value_{i}() -> None:
    assert value_{i}(0) == {j}
"""
MARKDOWN = (
    "# Note {i}\n\nSee [the docs](https://example.org/{i}) for details.\n\n- item one\n- item two\n"
)


def _blob(data: str) -> bytes:
    raw = data.encode()
    return b"data %d\n%s\n" % (len(raw), raw)


def _commit(ref: str, message: str, files: dict[str, str], when: int) -> bytes:
    """A fast-import commit; a second commit on `ref` continues from its tip."""
    out = [f"commit {ref}\n".encode(), f"committer Bench <b@example.org> {when} +0000\n".encode()]
    out.append(_blob(message))
    for path, text in files.items():
        out.append(f"M 100644 inline {path}\n".encode())
        out.append(_blob(text))
    return b"".join(out)


def _head_files(count: int, deliverables: int) -> dict[str, str]:
    files: dict[str, str] = {}
    for i in range(deliverables):
        doc = {
            "id": i,
            "name": f"item {i}",
            "score": 0.5,
            "tags": ["a", "b"],
            "created": "2024-01-01",
        }
        files[f"out/result-{i:05d}.json"] = json.dumps(doc, indent=2) + "\n"
    rest = count - deliverables
    for i in range(rest):
        kind = i % 3
        if kind == 0:
            files[f"src/pkg/mod_{i}.py"] = PYTHON.format(i=i)
        elif kind == 1:
            files[f"tests/test_mod_{i}.py"] = TEST.format(i=i, j=i + 3)
        else:
            files[f"docs/note-{i:05d}.md"] = MARKDOWN.format(i=i)
    return files


ATTRIBUTES = {
    ".gitattributes": "src/pkg/mod_1*.py linguist-generated\nvendor/** linguist-vendored\n",
    "docs/.gitattributes": "note-0000*.md -diff\n*.md linguist-documentation\n",
}


def make_repo(root: Path, count: int, deliverables: int, attributes: bool = False) -> Path:
    """A repository with a base commit and a head commit adding `count` files."""
    repo = root / f"repo-{count}-{deliverables}-{int(attributes)}"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    base = {CONFIG_PATH: CONFIG.format(n=0), "README.md": "# bench\n"}
    base.update(ATTRIBUTES if attributes else {})
    for n in range(SCHEMA_COUNT):
        base[f"schemas/result-{n}.schema.json"] = json.dumps(SCHEMA, indent=2) + "\n"
    stream = _commit("refs/heads/main", "base", base, 1_700_000_000)
    stream += _commit("refs/heads/main", "head", _head_files(count, deliverables), 1_700_000_100)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=stream, check=True)
    return repo


def score_once(repo: Path) -> dict[str, float]:
    """Time one full scoring of main~1..main."""
    cpu_start = _cpu()
    start = time.perf_counter()
    config = load_config(read_file_at(repo, "main~1", CONFIG_PATH).decode(), CONFIG_PATH)
    rubric = resolve_rubric(config.rubric, lambda p: read_file_at(repo, "main~1", p).decode())
    title, body = read_commit_log(repo, "main~1", "main")
    snapshot = read_snapshot(
        repo, "main~1", "main", title=title, body=body, base_files_wanted=schema_paths(config)
    )
    git_done = time.perf_counter()
    report = auto_score(snapshot, rubric, config)
    check_done = time.perf_counter()
    render_markdown(report)
    json.dumps(report_json(report))
    end = time.perf_counter()
    return {
        "git_s": git_done - start,
        "check_s": check_done - git_done,
        "render_s": end - check_done,
        "total_s": end - start,
        "cpu_s": _cpu() - cpu_start,
        "changed_files": len(snapshot.changes),
        "findings": sum(len(c.findings) for c in report.checks),
    }


def _cpu() -> float:
    """CPU seconds of this process and its finished children (git): steadier than wall time
    on a shared machine."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def best_of(repeat: int, run: Callable[[], dict[str, float]]) -> dict[str, Any]:
    """The run with the lowest total time, with every total listed."""
    runs = [run() for _ in range(repeat)]
    best = min(runs, key=lambda r: r["total_s"])
    rounded = {k: round(v, 4) if isinstance(v, float) else v for k, v in best.items()}
    return {**rounded, "totals_s": [round(r["total_s"], 4) for r in runs]}


def main() -> None:
    """Build the repositories, score each, print JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="100,1000,5000")
    args = parser.parse_args()
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="rubricate-bench-") as tmp, Progress() as progress:
        cases = [(int(n), int(n) // 3, False) for n in args.sizes.split(",")]
        cases += [(5000, 50, False), (5000, 1666, True)]
        for count, deliverables, attributes in cases:
            progress.step(f"{count:,} files, {deliverables:,} deliverables")
            repo = make_repo(Path(tmp), count, deliverables, attributes)
            timing = best_of(args.repeat, lambda repo=repo: score_once(repo))  # type: ignore[misc]
            case = {"files": count, "deliverables": deliverables, "gitattributes": attributes}
            results.append({**case, **timing})
    print(
        json.dumps(
            {
                "benchmark": "rubricate score",
                "python": platform.python_version(),
                "cpus": os.cpu_count(),
                "runs": results,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
