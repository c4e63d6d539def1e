"""The official JSON Schema Test Suite through rubricate's format check; prints JSON.

    python benchmarks/schema_test_suite.py SUITE [--drafts draft4,draft7] [--no-url-map]

SUITE is a clone of json-schema-org/JSON-Schema-Test-Suite: a checkout (holding `tests/`) or a
bare git directory (read at HEAD with git). Every test case of `tests/<draft>/*.json` and
`tests/<draft>/optional/**/*.json` goes the way a deliverable goes when a change is scored:
the case's schema is a schema file of the base tree (`compile_deliverable_schemas`, as
`auto_score` calls it), its data is a changed deliverable file `out/case.json` (the JSON text
written from the test file's own number tokens, so `1.0` and `1e400` reach rubricate's parser
as written), and `format_check` gives the verdict: an error finding on the file is *invalid*,
a "not validated" warning is *not checked* (the schema cannot be used), no finding is *valid*.
Any exception out of compiling or checking is an *error* (a crash), with its last lines.

The suite's harness convention is followed where a deliverable's own repository would hold
the same files: a root schema of drafts 3 to 7 (which the suite writes without `$schema`)
gets its directory's `$schema`, as a user's schema of that draft declares it (the few 2019-09
schemas without one are read as 2020-12, rubricate's default, as a user's would be); the suite's
`remotes/` folder, which refRemote tests reach at `http://localhost:1234/`, is a folder of the
base tree that `SchemaFiles`' URL map points that address to (rubricate never fetches); a
root schema whose `$id` lies under that address is stored at the matching path of the
folder, as its repository would store it, else at `schemas/case.json`. `--no-url-map` keeps
the folder but maps no address to it, as in a user's repository: a ref to that address then
resolves only by the root schema's own `$id`, or is "not checked".

Per draft and per file: cases, agree, disagree (wrong verdict), not_checked, errors, and
the description of every case that is not agreed (`group / case: expected -> got`). The
process's CPU seconds (user + system) are printed too.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import traceback
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rubricate.config import Config, Deliverable
from rubricate.errors import ConfigError
from rubricate.evidence.deliverable_schemas import (
    CompiledSchema,
    compile_deliverable_schema,
    compile_deliverable_schemas,
)
from rubricate.evidence.format_check import format_check
from rubricate.evidence.schema_refs import SchemaFiles
from rubricate.evidence.snapshot import FileChange, Snapshot
from rubricate.evidence.spec import Spec

REMOTE = "http://localhost:1234/"
REMOTES = "remotes/"
DELIVERABLE = "out/case.json"
DEFAULT_SCHEMA_PATH = "schemas/case.json"
DRAFTS = ("draft3", "draft4", "draft6", "draft7", "draft2019-09", "draft2020-12")
"""Every draft whose `$schema` rubricate accepts (draft 3 is accepted, though not claimed)."""
UNDECLARED = ("draft3", "draft4", "draft6", "draft7")
"""The drafts whose test schemas leave `$schema` out."""
DIALECTS = {
    "draft3": "http://json-schema.org/draft-03/schema#",
    "draft4": "http://json-schema.org/draft-04/schema#",
    "draft6": "http://json-schema.org/draft-06/schema#",
    "draft7": "http://json-schema.org/draft-07/schema#",
    "draft2019-09": "https://json-schema.org/draft/2019-09/schema",
    "draft2020-12": "https://json-schema.org/draft/2020-12/schema",
}


class Suite:
    """The suite's files, from a checkout or a bare git directory (at HEAD)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files: dict[str, bytes] = {}
        if (root / "tests").is_dir():
            for path in sorted(root.rglob("*.json")):
                relative = path.relative_to(root).as_posix()
                if relative.startswith(("tests/", "remotes/")):
                    self.files[relative] = path.read_bytes()
        else:
            self.files = _git_files(root)
        self.commit = _commit(root)

    def under(self, prefix: str) -> list[str]:
        return sorted(p for p in self.files if p.startswith(prefix))


def _git(root: Path, *args: str, given: bytes | None = None) -> bytes:
    proc = subprocess.run(
        ["git", "--git-dir", str(root), *args], input=given, capture_output=True, check=True
    )
    return proc.stdout


def _git_files(root: Path) -> dict[str, bytes]:
    listing = _git(root, "ls-tree", "-r", "-z", "HEAD", "--", "tests", "remotes").split(b"\0")
    wanted: list[tuple[str, str]] = []
    for row in filter(None, listing):
        meta, _, name = row.partition(b"\t")
        mode, kind, sha = meta.split()
        path = name.decode()
        if kind == b"blob" and mode != b"120000" and path.endswith(".json"):
            wanted.append((path, sha.decode()))
    out = _git(root, "cat-file", "--batch", given="".join(f"{s}\n" for _, s in wanted).encode())
    files: dict[str, bytes] = {}
    at = 0
    for path, _ in wanted:
        header_end = out.index(b"\n", at)
        size = int(out[at:header_end].split()[2])
        files[path] = out[header_end + 1 : header_end + 1 + size]
        at = header_end + 2 + size
    return files


def _commit(root: Path) -> str:
    git_dir = root if not (root / "tests").is_dir() else root / ".git"
    try:
        return _git(git_dir, "rev-parse", "HEAD").decode().strip()
    except (subprocess.CalledProcessError, FileNotFoundError):
        return ""


@dataclass(frozen=True)
class Number:
    """A JSON number token as the test file writes it."""

    text: str


def load_tokens(raw: bytes) -> Any:
    """A test file with every number kept as its token."""
    return json.loads(raw, parse_float=Number, parse_int=Number)


def dump_tokens(value: Any) -> str:
    """JSON text of `load_tokens` data, numbers written back as they were."""
    if isinstance(value, Number):
        return value.text
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {dump_tokens(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(dump_tokens(item) for item in value) + "]"
    return json.dumps(value)


def schema_path(schema: Any) -> str:
    """Where the case's schema lies in the base tree: under `remotes/` when its `$id` is a
    `localhost:1234` address (so its relative refs name the remotes beside it; an `$id` that
    names a folder puts it in that folder)."""
    if isinstance(schema, dict):
        for key in ("$id", "id"):
            found = schema.get(key)
            if isinstance(found, str) and found.startswith(REMOTE):
                tail = found[len(REMOTE) :].split("#", 1)[0]
                return REMOTES + (tail + "case.json" if tail.endswith("/") or not tail else tail)
    return DEFAULT_SCHEMA_PATH


@dataclass
class Outcome:
    verdict: str  # "valid", "invalid", "not checked", "error"
    detail: str = ""


def run_group(
    schema: Any, datas: list[Any], remotes: Mapping[str, bytes], url_map: Mapping[str, str]
) -> list[Outcome]:
    """Each data's verdict under one schema, on rubricate's scoring path."""
    path = schema_path(schema)
    base_files = {**remotes, path: dump_tokens(schema).encode()}
    deliverable = Deliverable.model_validate({"glob": DELIVERABLE, "schema": path})
    config = Config(deliverables=(deliverable,))
    try:
        compiled = _compiled(deliverable, base_files, url_map)
    except Exception:  # a crash is what the benchmark counts
        return [Outcome("error", _last_lines())] * len(datas)
    outcomes = []
    for data in datas:
        content = dump_tokens(data).encode()
        change = FileChange(DELIVERABLE, "added", size=len(content), content=content)
        snapshot = Snapshot("base", "head", changes=(change,), head_paths=frozenset([DELIVERABLE]))
        try:
            result = format_check(snapshot, config, compiled, Spec())
        except Exception:  # a crash is what the benchmark counts
            outcomes.append(Outcome("error", _last_lines()))
            continue
        outcomes.append(_verdict(result.findings))
    return outcomes


def _compiled(
    deliverable: Deliverable, base_files: Mapping[str, bytes], url_map: Mapping[str, str]
) -> dict[int, CompiledSchema]:
    """`compile_deliverable_schemas` for one rule, with the base tree's URL map: a schema that
    cannot be used is kept with its problem, as there."""
    if not url_map:
        return compile_deliverable_schemas(Config(deliverables=(deliverable,)), base_files)
    try:
        found = compile_deliverable_schema(0, deliverable, SchemaFiles(base_files, url_map))
    except ConfigError as exc:
        found = CompiledSchema(str(deliverable.schema_), None, str(exc))
    return {} if found is None else {0: found}


def _verdict(findings: Any) -> Outcome:
    errors = [f for f in findings if f.path == DELIVERABLE and f.severity == "error"]
    if errors:
        return Outcome("invalid", errors[0].message)
    unchecked = [f for f in findings if f.path == DELIVERABLE and "not validated" in f.message]
    if unchecked:
        return Outcome("not checked", unchecked[0].message)
    return Outcome("valid")


def _last_lines() -> str:
    lines = traceback.format_exc().strip().splitlines()
    return " | ".join(line.strip() for line in lines[-3:])


def cases(suite: Suite, draft: str) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Each test file of a draft (optional ones too) and its groups, numbers kept as tokens."""
    for path in suite.under(f"tests/{draft}/"):
        yield path.removeprefix(f"tests/{draft}/"), load_tokens(suite.files[path])


def with_dialect(schema: Any, draft: str) -> Any:
    """The root schema declaring its draft, for the drafts whose tests leave it out."""
    if isinstance(schema, dict) and "$schema" not in schema and draft in UNDECLARED:
        return {"$schema": DIALECTS[draft], **schema}
    return schema


def measure(
    suite: Suite, draft: str, remotes: Mapping[str, bytes], url_map: Mapping[str, str]
) -> dict[str, Any]:
    files: dict[str, Any] = {}
    for name, groups in cases(suite, draft):
        tally = {"cases": 0, "agree": 0, "disagree": 0, "not_checked": 0, "errors": 0}
        wrong: list[str] = []
        for group in groups:
            tests = group["tests"]
            schema = with_dialect(group["schema"], draft)
            outcomes = run_group(schema, [t["data"] for t in tests], remotes, url_map)
            for test, outcome in zip(tests, outcomes, strict=True):
                tally["cases"] += 1
                expected = "valid" if test["valid"] else "invalid"
                if outcome.verdict == expected:
                    tally["agree"] += 1
                    continue
                key = {"error": "errors", "not checked": "not_checked"}.get(
                    outcome.verdict, "disagree"
                )
                tally[key] += 1
                shown = f"{group['description']} / {test['description']}: {expected} -> "
                shown += outcome.verdict + (f" ({outcome.detail[:200]})" if outcome.detail else "")
                wrong.append(shown)
        files[name] = tally | ({"not_agreed": wrong} if wrong else {})
    total = {
        key: sum(f[key] for f in files.values())
        for key in ("cases", "agree", "disagree", "not_checked", "errors")
    }
    return {"total": total, "files": files}


def remote_files(suite: Suite) -> dict[str, bytes]:
    return {p: data for p, data in suite.files.items() if p.startswith(REMOTES)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", type=Path, help="a checkout or bare clone of the suite")
    parser.add_argument("--drafts", default=",".join(DRAFTS), help="comma-separated folders")
    parser.add_argument(
        "--no-url-map",
        action="store_true",
        help="keep remotes/ in the base tree but map no address to it (a repository's case)",
    )
    args = parser.parse_args(argv)
    try:
        suite = Suite(args.suite)
    except (subprocess.CalledProcessError, OSError) as exc:
        print(f"error: cannot read the suite at {args.suite}: {exc}", file=sys.stderr)
        return 2
    drafts = [d.strip() for d in args.drafts.split(",") if d.strip()]
    missing = [d for d in drafts if not suite.under(f"tests/{d}/")]
    if missing:
        print(f"error: the suite has no tests/{', tests/'.join(missing)}", file=sys.stderr)
        return 2
    remotes = remote_files(suite)
    url_map = {} if args.no_url_map else {REMOTE: REMOTES}
    result: dict[str, Any] = {"suite_commit": suite.commit, "drafts": {}}
    for draft in drafts:
        result["drafts"][draft] = measure(suite, draft, remotes, url_map)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    result["cpu_seconds"] = round(usage.ru_utime + usage.ru_stime, 2)
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
