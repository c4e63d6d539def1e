"""Load every AgentV eval file of an AgentV git checkout with rubricate (prints JSON).

For each commit given, the corpus is: `examples/**/evals/*.yaml`, every YAML file under
`evals/`, and the fenced YAML blocks of the Markdown docs that are complete eval files (they
have `tests:`, `evalcases:` or `eval_cases:`). Only YAML mappings with one of those keys, or
with `assert:`/`assertions:`, count as eval files. Each one is loaded with
`rubricate.rubric.loader.load_rubrics`; `include:`/`file://` references are read from the
same commit. The output counts the files that load, and the messages of those that do not.
Each file is also compared grader by grader with what AgentV makes of it
(`agentv_meaning.py`, written apart from rubricate's loader): `meaning` counts the files whose
LLM graders rubricate loads as AgentV scores them (kind and number of items per test; a file
AgentV refuses, or one with no LLM grader, must be refused), per form and per grader kind.
Files whose tests or graders live in other files are compared on loading only.
Nothing is copied out of the checkout.

Usage: python benchmarks/bench_agentv_corpus.py GIT_DIR [COMMIT...] [--examples N]
"""

from __future__ import annotations

import argparse
import collections
import inspect
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any

import yaml
from agentv_meaning import expected, loaded_graders

from rubricate.errors import RubricateError, SourceError
from rubricate.rubric import loader
from rubricate.rubric.agentv.forms import detect_form

EVAL_KEYS = ("tests", "evalcases", "eval_cases")
RUBRIC_KEYS = ("assert", "assertions")
FENCE = re.compile(r"^```ya?ml[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|\d+")


def _git(git_dir: str, *args: str) -> bytes:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True
    ).stdout


def _paths(git_dir: str, commit: str) -> list[str]:
    listing = _git(git_dir, "ls-tree", "-r", "--name-only", commit).decode()
    return listing.splitlines()


def _is_eval_yaml(path: str) -> bool:
    parts = PurePosixPath(path).parts
    if not path.endswith((".yaml", ".yml")):
        return False
    in_examples = parts[0] == "examples" and "evals" in parts[:-1]
    return in_examples or parts[0] == "evals"


def _is_eval(text: str) -> bool:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return True  # a broken file still counts: rubricate must say why
    if not isinstance(data, dict):
        return False
    return any(key in data for key in (*EVAL_KEYS, *RUBRIC_KEYS))


def _doc_blocks(text: str) -> list[str]:
    blocks = []
    for match in FENCE.finditer(text):
        block = match.group(1)
        try:
            data = yaml.safe_load(block)
        except yaml.YAMLError:
            continue
        if isinstance(data, dict) and any(key in data for key in EVAL_KEYS):
            blocks.append(block)
    return blocks


def _reader(git_dir: str, commit: str, known: set[str]) -> Callable[[str], str]:
    def read(path: str) -> str:
        clean = path.removeprefix("./")
        if clean not in known:
            raise FileNotFoundError(path)
        return _git(git_dir, "show", f"{commit}:{clean}").decode("utf-8")

    return read


def _load(text: str, source: str, read: Callable[[str], str]) -> tuple[str, Any]:
    takes_reader = "read" in inspect.signature(loader.load_rubrics).parameters
    try:
        if takes_reader:
            loaded = loader.load_rubrics(text, source, read=read)  # type: ignore[call-arg,unused-ignore]
        else:
            loaded = loader.load_rubrics(text, source)
    except SourceError as exc:
        errors = [d for d in exc.diagnostics if d.severity == "error"]
        return "error", [d.message for d in errors] or [str(exc)]
    except RubricateError as exc:
        return "error", [str(exc)]
    except Exception as exc:
        return "crash", [f"{type(exc).__name__}: {exc}"]
    return "ok", loaded


def _corpus(git_dir: str, commit: str) -> list[tuple[str, str]]:
    paths = _paths(git_dir, commit)
    files = []
    for path in paths:
        if _is_eval_yaml(path):
            text = _git(git_dir, "show", f"{commit}:{path}").decode("utf-8", "replace")
            if _is_eval(text):
                files.append((path, text))
        elif path.endswith((".md", ".mdx")):
            text = _git(git_dir, "show", f"{commit}:{path}").decode("utf-8", "replace")
            for n, block in enumerate(_doc_blocks(text), 1):
                files.append((f"{path}#yaml-{n}", block))
    return files


class _Meaning:
    """Files and graders where rubricate's reading agrees with AgentV's, per form."""

    def __init__(self, examples: int) -> None:
        self.files: collections.Counter[str] = collections.Counter()
        self.graders: collections.Counter[str] = collections.Counter()
        self.misses: dict[str, list[str]] = collections.defaultdict(list)
        self.examples = examples

    def compare(self, path: str, text: str, status: str, detail: Any) -> None:
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            data = None
        form = detect_form(data) if isinstance(data, dict) else None
        name = form or "none"
        self.files[f"{name}:files"] += 1
        self.files["all:files"] += 1
        if form is None or not isinstance(data, dict):
            self._count(name, status != "ok", path, "no AgentV form")
            return
        try:
            want = expected(data, form)
        except LookupError:
            missing = status != "ok" and "no such file" in str(detail[0])
            self._count(name, status == "ok" or missing, path, f"references: {detail}"[:200])
            return
        if want is None:
            self._count(name, status != "ok", path, "AgentV refuses it")
            return
        cases = {case: graders for case, graders in want.items() if graders}
        for graders in cases.values():
            for kind, _ in graders:
                self.graders[f"{kind}:expected"] += 1
        if not cases:
            self._count(name, status != "ok", path, "no LLM grader: must be refused")
            return
        if status != "ok":
            self._count(name, False, path, f"refused: {str(detail[0])[:80]}")
            return
        got = {r.case: loaded_graders(r) for r in detail.rubrics}
        agree = True
        for case, graders in cases.items():
            mine = got.get(case, [])
            for n, grader in enumerate(graders):
                same = n < len(mine) and mine[n] == grader
                self.graders[f"{grader[0]}:matched"] += same
            agree = agree and mine == graders
        why = f"graders {sorted(cases.items(), key=str)[:1]} vs {sorted(got.items(), key=str)[:1]}"
        self._count(name, agree, path, why)

    def _count(self, form: str, agree: bool, path: str, why: str) -> None:
        if agree:
            self.files[f"{form}:meaning"] += 1
            self.files["all:meaning"] += 1
        elif len(self.misses[form]) < self.examples * 5:
            self.misses[form].append(f"{path}: {why}")

    def summary(self) -> dict[str, Any]:
        return {"files": dict(self.files), "graders": dict(self.graders), "misses": self.misses}


def measure(git_dir: str, commit: str, examples: int) -> dict[str, Any]:
    """Counts and message histogram for one commit."""
    known = set(_paths(git_dir, commit))
    read = _reader(git_dir, commit, known)
    counts: collections.Counter[str] = collections.Counter()
    kinds: collections.Counter[str] = collections.Counter()
    messages: collections.Counter[str] = collections.Counter()
    forms: collections.Counter[str] = collections.Counter()
    samples: dict[str, list[str]] = collections.defaultdict(list)
    meaning = _Meaning(examples)
    for path, text in _corpus(git_dir, commit):
        kind = "docs" if "#yaml-" in path else "files"
        kinds[kind] += 1
        status, detail = _load(text, path.split("#")[0], read)
        meaning.compare(path, text, status, detail)
        counts[status] += 1
        counts[f"{status}:{kind}"] += 1
        if status == "ok":
            forms[detail.dialect] += 1
            continue
        first = QUOTED.sub("…", detail[0])
        messages[first] += 1
        if len(samples[first]) < examples:
            samples[first].append(path)
    sha = _git(git_dir, "rev-parse", commit).decode().strip()
    return {
        "commit": commit,
        "sha": sha,
        "eval_files": kinds["files"],
        "doc_blocks": kinds["docs"],
        "loaded": counts["ok"],
        "loaded_files": counts["ok:files"],
        "loaded_doc_blocks": counts["ok:docs"],
        "failed": counts["error"],
        "crashed": counts["crash"],
        "forms": dict(forms),
        "meaning": meaning.summary(),
        "first_messages": [
            {"count": n, "message": m, "examples": samples[m]} for m, n in messages.most_common()
        ],
    }


def main(argv: list[str] | None = None) -> int:
    """Measure each commit and print one JSON document."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("git_dir")
    parser.add_argument("commits", nargs="*", default=["HEAD"])
    parser.add_argument("--examples", type=int, default=2, help="example paths per message")
    args = parser.parse_args(argv)
    results = [measure(args.git_dir, commit, args.examples) for commit in args.commits]
    json.dump(results, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
