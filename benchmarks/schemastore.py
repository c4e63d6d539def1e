"""SchemaStore's own test corpus through `rubricate score`, beside check-jsonschema; prints JSON.

    python benchmarks/schemastore.py SCHEMASTORE_DIR [--sample N | --schemas A,B]
        [--no-check-jsonschema]

SCHEMASTORE_DIR holds SchemaStore's `src/` (schemas in `src/schemas/json/NAME.json`, files that
must be valid in `src/test/NAME/`, files that must be invalid in `src/negative_test/NAME/`,
settings in `src/schema-validation.json(c)`). Schemas listed under `skiptest` are left out, as
SchemaStore's CI leaves them out. A temporary git repository gets the schemas and a config
with one deliverable entry per schema (`src/*test/NAME/*`, as a user would write it) in its base
commit and the test files in its head commit; `rubricate score --judge none --no-graders
--format json` scores the change once. A file is *rejected* when the format check has an error
on it, *unchecked* when its schema could not be used (a warning). check-jsonschema then checks
the same files, one run per schema (`--schemafile`, as a CI step does), with no network: a
schema whose `$ref` needs a download fails there. Both are timed: wall clock and CPU seconds
(user + system of the child processes); where check-jsonschema waits on the network, its wall
time is mostly that wait, and the CPU time is the fair comparison.

Agreement with SchemaStore's CI: a valid test file must not be rejected, a negative test file
must be. `--sample N` takes N schemas evenly spread over the sorted names (0: all);
`--schemas A,B` takes just the named schemas. `--findings FILE` writes every finding of the
format check (path, line, severity, message; sorted, one JSON array a line), so two installs'
verdicts can be compared byte for byte.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from rubricate.evidence.file_kinds import glob_escape

SUFFIXES = (".json", ".yaml", ".yml", ".toml")
CHECK_TIMEOUT = 120
JSONC_TOKEN = re.compile(r'("(?:[^"\\]|\\.)*")|//[^\n]*|/\*.*?\*/', re.S)
TRAILING_COMMA = re.compile(r",(\s*[\]}])")


def settings(src: Path) -> dict[str, Any]:
    """`schema-validation.jsonc` (or `.json`) with comments and trailing commas removed."""
    for name in ("schema-validation.jsonc", "schema-validation.json"):
        path = src / name
        if path.is_file():
            text = JSONC_TOKEN.sub(lambda m: m.group(1) or "", path.read_text(encoding="utf-8"))
            return dict(json.loads(TRAILING_COMMA.sub(r"\1", text)))
    return {}


def test_files(src: Path, name: str) -> dict[str, bool]:
    """Each test file of a schema (relative to the repository) and whether it must be valid."""
    found: dict[str, bool] = {}
    for folder, valid in (("test", True), ("negative_test", False)):
        directory = src / folder / name
        if directory.is_dir():
            for path in sorted(directory.iterdir()):
                if path.is_file() and path.suffix in SUFFIXES:
                    found[f"src/{folder}/{name}/{path.name}"] = valid
    return found


def pick(src: Path, sample: int) -> tuple[list[str], list[str]]:
    """The schema names with tests (an even spread of `sample` of them), and those skipped."""
    skipped = {n.removesuffix(".json") for n in settings(src).get("skiptest", [])}
    names = sorted(
        p.stem for p in (src / "schemas" / "json").glob("*.json") if test_files(src, p.stem)
    )
    kept = [n for n in names if n not in skipped]
    if 0 < sample < len(kept):
        step = len(kept) / sample
        kept = [kept[int(i * step)] for i in range(sample)]
    return kept, sorted(skipped & set(names))


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.org"}
    env |= {"GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.org"}
    proc = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, check=True)
    return proc.stdout.decode().strip()


def build(src: Path, names: list[str], repo: Path) -> dict[str, tuple[str, bool]]:
    """The scored repository; returns each test file's schema name and expected validity."""
    git(repo, "init", "--quiet", "-b", "main")
    shutil.copytree(src / "schemas" / "json", repo / "src" / "schemas" / "json")
    entries = [
        f"  - glob: {json.dumps('src/*test/' + glob_escape(n) + '/*')}\n"
        f"    schema: {json.dumps(f'src/schemas/json/{n}.json')}\n"
        for n in names
    ]
    (repo / ".github").mkdir()
    (repo / ".github/rubricate.yml").write_text("deliverables:\n" + "".join(entries))
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", "schemas")
    expected: dict[str, tuple[str, bool]] = {}
    for name in names:
        for path, valid in test_files(src, name).items():
            target = repo / path
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src / path.removeprefix("src/"), target)
            expected[path] = (name, valid)
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", "tests")
    return expected


def child_cpu() -> float:
    """User + system seconds of the finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def rubricate_verdicts(
    repo: Path, findings_file: Path | None = None
) -> tuple[dict[str, str], float, int]:
    """Each file's verdict (`rejected`, `unchecked`, `accepted`), the wall time, the exit code;
    the format check's findings go to `findings_file` when one is given."""
    command = [sys.executable, "-m", "rubricate", "score", "--repo", str(repo), "--base", "HEAD~1"]
    command += ["--judge", "none", "--no-graders", "--format", "json", "--fail-on", "never"]
    start = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        print(proc.stderr[-2000:], file=sys.stderr)
        return {}, seconds, proc.returncode
    verdicts: dict[str, str] = {}
    for check in json.loads(proc.stdout)["checks"]:
        if check["id"] != "format":
            continue
        if findings_file is not None:
            write_findings(findings_file, check["findings"])
        for finding in check["findings"]:
            path = finding.get("path")
            if path is None:
                continue
            if finding["severity"] == "error":
                verdicts[path] = "rejected"
            elif "not validated" in finding["message"]:
                verdicts.setdefault(path, "unchecked")
    return verdicts, seconds, 0


def write_findings(path: Path, findings: list[dict[str, Any]]) -> None:
    """One JSON array a line: path, line, severity, message; sorted."""
    rows = sorted(
        json.dumps([f.get("path"), f.get("line"), f["severity"], f["message"]], ensure_ascii=False)
        for f in findings
    )
    path.write_text("".join(row + "\n" for row in rows), encoding="utf-8")


def check_jsonschema_verdicts(
    repo: Path, expected: dict[str, tuple[str, bool]]
) -> tuple[dict[str, str], float]:
    """check-jsonschema on the same files, one run per schema."""
    exe = shutil.which("check-jsonschema") or str(
        Path(sys.executable).with_name("check-jsonschema")
    )
    by_schema: dict[str, list[str]] = {}
    for path, (name, _) in expected.items():
        by_schema.setdefault(name, []).append(path)
    verdicts: dict[str, str] = {}
    start = time.perf_counter()
    for name, paths in sorted(by_schema.items()):
        command = [exe, "--no-cache", "-o", "json", "--schemafile"]
        command += [f"src/schemas/json/{name}.json", *paths]
        try:
            proc = subprocess.run(
                command, cwd=repo, capture_output=True, text=True, timeout=CHECK_TIMEOUT
            )
        except subprocess.TimeoutExpired:
            verdicts.update(dict.fromkeys(paths, "unchecked"))
            continue
        verdicts.update(_cj_verdicts(proc.stdout, paths, proc.returncode))
    return verdicts, time.perf_counter() - start


def _cj_verdicts(stdout: str, paths: list[str], code: int) -> dict[str, str]:
    try:
        report = json.loads(stdout)
    except ValueError:  # the schema itself failed (a download, a bad schema): nothing checked
        return dict.fromkeys(paths, "unchecked" if code else "accepted")
    bad = {e.get("filename") for e in report.get("errors", [])}
    bad |= {e.get("filename") for e in report.get("parse_errors", [])}
    return {p: "rejected" if p in bad else "accepted" for p in paths}


def agreement(expected: dict[str, tuple[str, bool]], verdicts: dict[str, str]) -> dict[str, Any]:
    """How the verdicts compare with SchemaStore's CI, and the files that disagree."""
    counts: Counter[str] = Counter()
    wrong: list[str] = []
    for path, (_, valid) in sorted(expected.items()):
        verdict = verdicts.get(path, "accepted")
        kind = "valid" if valid else "invalid"
        counts[f"{kind}_{verdict}"] += 1
        if verdict != "unchecked" and (verdict == "rejected") == valid:
            wrong.append(path)
    return {"counts": dict(sorted(counts.items())), "wrong": len(wrong), "wrong_files": wrong}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("schemastore", type=Path, help="a SchemaStore checkout (holding src/)")
    parser.add_argument("--sample", type=int, default=150, help="schemas to take (0: all)")
    parser.add_argument("--no-check-jsonschema", action="store_true")
    parser.add_argument("--schemas", default="", help="only these schema names (comma-separated)")
    parser.add_argument("--findings", type=Path, help="write the format check's findings here")
    args = parser.parse_args(argv)
    src = args.schemastore / "src"
    if not (src / "schemas" / "json").is_dir():
        print(f"error: {src}/schemas/json is not a folder", file=sys.stderr)
        return 2
    names, skipped = pick(src, 0 if args.schemas else args.sample)
    if args.schemas:
        wanted = {n.strip() for n in args.schemas.split(",") if n.strip()}
        unknown = sorted(wanted - set(names))
        if unknown:
            print(f"error: no tested schema named {', '.join(unknown)}", file=sys.stderr)
            return 2
        names = [n for n in names if n in wanted]
    with tempfile.TemporaryDirectory(prefix="rubricate-schemastore-") as temp:
        repo = Path(temp)
        expected = build(src, names, repo)
        cpu = child_cpu()
        ours, our_seconds, code = rubricate_verdicts(repo, args.findings)
        our_cpu = child_cpu() - cpu
        result: dict[str, Any] = {
            "schemas": len(names),
            "skipped_by_skiptest": len(skipped),
            "files": len(expected),
            "valid_files": sum(v for _, v in expected.values()),
            "rubricate": {"exit": code, "seconds": round(our_seconds, 2), "cpu": round(our_cpu, 2)}
            | agreement(expected, ours),
        }
        if not args.no_check_jsonschema:
            cpu = child_cpu()
            theirs, their_seconds = check_jsonschema_verdicts(repo, expected)
            their_cpu = child_cpu() - cpu
            timing = {"seconds": round(their_seconds, 2), "cpu": round(their_cpu, 2)}
            result["check_jsonschema"] = timing | agreement(expected, theirs)
            result["time_ratio"] = round(our_seconds / their_seconds, 2) if their_seconds else None
            result["cpu_ratio"] = round(our_cpu / their_cpu, 2) if their_cpu else None
            result["rubricate_wrong_where_check_jsonschema_right"] = sorted(
                set(result["rubricate"]["wrong_files"])
                - set(result["check_jsonschema"]["wrong_files"])
                - {p for p, v in theirs.items() if v == "unchecked"}
            )
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
