"""Measure the injection scan on held-out public corpora it is never trained or tuned on; JSON.

    nice -n 10 python benchmarks/bench_injection_heldout.py --mirrors /work/.mirror \
        [--weights F] [--sources NAME,...]

Each source is read from a git mirror (`fetch`ed to `--mirrors`; a source whose mirror is
absent is skipped and listed), its commit recorded, and each payload (at most `PER_SOURCE`,
taken evenly) embedded in every carrier of `injection_measure.CARRIERS`; the shares flagged
are given overall, per source and per carrier. The training script never reads these
repositories, but some payloads travel between public collections: a payload that starts as
a training payload does (`seen_key`, the first `SEEN_CHARS` characters of its words) is left
out and counted (`seen_left_out`), unless `--keep-seen`. Only the attacker's text is taken,
never the victim's task or question:

- BIPIA's text and code attacks (microsoft/BIPIA); Tensor Trust's hijacking and extraction
  attacks (HumanCompatibleAI/tensor-trust-data); promptmap's rule prompts (utkusen/promptmap);
  the prompts llm-guard's tests expect flagged (protectai/llm-guard).
- AgentDojo: each injection task's goal in each attack template as planted in tool output
  (sequrity-ai/agentdojo, a fork with ethz-spylab/agentdojo's history; the original cannot be
  fetched here).
- InjecAgent's direct-harm attacker instructions and Agent Security Bench's attack-tool
  instructions, from Zhang-Henry/AIOS_agent, the ASB authors' repository (neither
  uiuc-kang-lab/InjecAgent nor agiresearch/ASB can be fetched here); InjecAgent's copy is read
  at the last commit that holds it (`PINNED`). InjecAgent's data-stealing cases are not there.
- greshake/llm-security's planted injections; sail-sg/Cheating-LLM-Benchmarks' null-model
  submission; RobustJudge's attacks on judges (S3IC-Lab/RobustJudge); roastchain's injections
  for an AI judge (ishaansbots/roastchain).
- promptfoo's CyberSecEval example (xiyouqishui/promptfoo, a fork: promptfoo/promptfoo is too
  large to fetch here). promptfoo's prompt-injection strategy strings are left out: most are
  jailbreaks of the detector's training sources.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from injection_corpora import Mirror, evenly, injection_items
from injection_measure import CARRIERS, WAYS, WHERE, detector_of, verdicts

from rubricate.judge.detector import Detector

PER_SOURCE = 120


def bipia(name: str) -> Callable[[Mirror], list[str]]:
    def read(mirror: Mirror) -> list[str]:
        data = json.loads(mirror.read(f"benchmark/{name}.json"))
        return [text for values in data.values() for text in values]

    return read


def tensor_trust(path: str) -> Callable[[Mirror], list[str]]:
    def read(mirror: Mirror) -> list[str]:
        rows = [json.loads(line) for line in mirror.read(path).splitlines() if line.strip()]
        return [str(row["attack"]) for row in rows if str(row.get("attack", "")).strip()]

    return read


def promptmap(mirror: Mirror) -> list[str]:
    found: list[str] = []
    for path in mirror.paths(r"^rules/.*\.ya?ml$"):
        for line in mirror.read(path).splitlines():
            if line.startswith("prompt:"):
                found.append(
                    json.loads(line.removeprefix("prompt:").strip())
                    if '"' in line
                    else line[7:].strip()
                )
    return found


def llm_guard(mirror: Mirror) -> list[str]:
    """The prompts llm-guard's prompt-injection tests expect to be flagged."""
    tree = ast.parse(mirror.read("tests/input_scanners/test_prompt_injection.py"))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple) and len(node.elts) == 4:
            prompt, valid = node.elts[1], node.elts[2]
            if isinstance(valid, ast.Constant) and valid.value is False:
                try:
                    found.append(str(ast.literal_eval(prompt)))
                except ValueError:
                    continue
    return found


def _literal(node: ast.expr | None) -> str | None:
    """The string a literal expression evaluates to, or None."""
    try:
        value = ast.literal_eval(node) if node is not None else None
    except (ValueError, TypeError):
        return None
    return value if isinstance(value, str) else None


def _string_names(nodes: Iterable[ast.AST]) -> dict[str, str]:
    """The names the statements among `nodes` assign a string literal to, with the strings."""
    found: dict[str, str] = {}
    for statement in nodes:
        if isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            value = _literal(statement.value)
            for target in targets:
                if isinstance(target, ast.Name) and value is not None:
                    found[target.id] = value
    return found


def _fill(node: ast.expr | None, names: dict[str, str]) -> str | None:
    """A string literal, or an f-string whose holes are all names in `names`; else None."""
    if not isinstance(node, ast.JoinedStr):
        return _literal(node)
    parts: list[str] = []
    for value in node.values:
        if isinstance(value, ast.Constant):
            parts.append(str(value.value))
        elif isinstance(value, ast.FormattedValue) and isinstance(value.value, ast.Name):
            if value.value.id not in names or value.format_spec or value.conversion != -1:
                return None
            parts.append(names[value.value.id])
        else:
            return None
    return "".join(parts)


def _python(mirror: Mirror, pattern: str) -> Iterator[tuple[str, ast.Module]]:
    """The Python files of `mirror` whose path matches `pattern`, parsed (unparsable: skipped)."""
    for path in mirror.paths(pattern):
        source = mirror.read(path)
        try:
            yield source, ast.parse(source)
        except SyntaxError:
            continue


def agentdojo(mirror: Mirror) -> list[str]:
    """Each injection task's goal in each attack template, as AgentDojo plants it in tool output."""
    defaults = _string_names(ast.parse(mirror.read("src/agentdojo/attacks/base_attacks.py")).body)
    goals: list[str] = []
    for _, module in _python(mirror, r"^src/agentdojo/default_suites/.*/injection_tasks\.py$"):
        constants = _string_names(module.body)
        for node in ast.walk(module):
            if isinstance(node, ast.ClassDef):
                names = constants | _string_names(node.body)
                for statement in node.body:
                    if isinstance(statement, (ast.Assign, ast.AnnAssign)):
                        targets = (
                            statement.targets
                            if isinstance(statement, ast.Assign)
                            else [statement.target]
                        )
                        if any(isinstance(t, ast.Name) and t.id == "GOAL" for t in targets):
                            goal = _fill(statement.value, names)
                            goals.extend([goal] if goal else [])
    templates: list[str] = []
    for _, module in _python(mirror, r"^src/agentdojo/attacks/.*\.py$"):
        for node in ast.walk(module):
            if isinstance(node, ast.ClassDef):
                strings = _string_names(node.body)
                templates.extend(v for k, v in strings.items() if k.endswith("_STRING"))
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "__init__"
                and node.args
            ):
                template = _literal(node.args[0])
                templates.extend([template] if template else [])
    user = defaults.get("DEFAULT_USER_NAME", "the user")
    model = defaults.get("DEFAULT_MODEL_NAME", "the AI language model")
    found: list[str] = []
    for template in dict.fromkeys(templates):
        for goal in goals if "{goal}" in template else [""]:
            try:
                found.append(template.format(goal=goal, user=user, model=model))
            except (KeyError, IndexError, ValueError):
                break  # a template with holes of its own: not one an attack fills this way
    return found


def attacker_instructions(path: str) -> Callable[[Mirror], list[str]]:
    """The "Attacker Instruction" of each JSON line of `path` (InjecAgent's and ASB's cases)."""

    def read(mirror: Mirror) -> list[str]:
        rows = [json.loads(line) for line in mirror.read(path).splitlines() if line.strip()]
        return [str(row["Attacker Instruction"]) for row in rows if "Attacker Instruction" in row]

    return read


GRESHAKE_PAYLOAD = re.compile(r"injection|payload|malicious|instructions|^text$")
COPIED = "#### END OF COPIED CODE"


def greshake(mirror: Mirror) -> list[str]:
    """The injections of greshake/llm-security's demos: the strings its scenarios plant, its
    puzzle pages, and the docstrings of its poisoned code-completion package."""
    found: list[str] = []
    for _, module in _python(mirror, r"^scenarios/.*\.py$"):
        for node in ast.walk(module):
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name) and GRESHAKE_PAYLOAD.search(target.id):
                        text = _fill(node.value, {})
                        found.extend([text] if text else [])
    for source, module in _python(mirror, r"^scenarios/code-completion/.*/injection/\w+\.py$"):
        # what the file marks as copied from Flask comes before its mark and is not the attacker's
        lines = source.splitlines()
        own = max((n for n, line in enumerate(lines, 1) if line.startswith(COPIED)), default=0)
        for node in ast.walk(module):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.lineno > own:
                docstring = ast.get_docstring(node)
                found.extend([docstring] if docstring else [])
    found.extend(mirror.read(path) for path in mirror.paths(r"^scenarios/puzzle/puzzles/[^/]+$"))
    return found


def cheating_llm(mirror: Mirror) -> list[str]:
    """The null-model submissions of sail-sg/Cheating-LLM-Benchmarks and the templates its
    notebooks build them from (the adversarial prefix hole left empty)."""
    found = [str(row["output"]) for row in json.loads(mirror.read("example/outputs.json"))]
    for path in mirror.paths(r"\.ipynb$"):
        for cell in json.loads(mirror.read(path)).get("cells", []):
            source = "".join(cell.get("source", []))
            try:
                module = ast.parse(source) if cell.get("cell_type") == "code" else None
            except SyntaxError:
                continue
            for name, text in _string_names(module.body if module else []).items():
                found.extend([text.replace("{adv}", "")] if name.endswith("template") else [])
    return found


def robustjudge(mirror: Mirror) -> list[str]:
    """RobustJudge's attacks on LLM judges: the strings its prompt-injection attacks append to
    the judged content, and its cheating attack's templates (adversarial prefix left empty)."""
    found: list[str] = []
    for _, module in _python(mirror, r"^modules/attack/manual_prompt_injection/\w+\.py$"):
        for function in module.body:
            if not isinstance(function, ast.FunctionDef):
                continue
            names = _string_names(ast.walk(function))
            for node in ast.walk(function):
                if (
                    isinstance(node, ast.BinOp)
                    and isinstance(node.op, ast.Add)
                    and isinstance(node.left, ast.Name)
                    and node.left.id == "content"
                ):
                    right = node.right
                    text = names.get(right.id) if isinstance(right, ast.Name) else _literal(right)
                    found.extend([text] if text else [])
    for _, module in _python(mirror, r"^modules/attack/cheating_llm/.*\.py$"):
        for name, text in _string_names(module.body).items():
            if name.startswith("adv_template"):
                text = text.replace("{adv}", "").replace("##SOURCE_LAN##", "Chinese")
                found.append(text.replace("##TARGET_LAN##", "English"))
    return found


FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)
COMMENT = re.compile(r"<!--(.*?)-->", re.S)


def roastchain(mirror: Mirror) -> list[str]:
    """The injections roastchain plants for an AI judge: the fenced blocks of its injection
    strategy and the multi-line HTML comments of its pages."""
    found = FENCE.findall(mirror.read("PROMPT_INJECTION_STRATEGY.md"))
    for path in mirror.paths(r"^frontend/[^/]+\.html$"):
        found.extend(c for c in COMMENT.findall(mirror.read(path)) if "\n" in c)
    return found


def promptfoo_cyberseceval(mirror: Mirror) -> list[str]:
    """The attacker's input of each case of promptfoo's CyberSecEval example (English)."""
    rows = json.loads(mirror.read("examples/cyberseceval/prompt_injection.json"))
    return [str(row["user_input"]) for row in rows]


class Pinned(Mirror):
    """A mirror read at one commit of its history instead of HEAD."""

    def __init__(self, root: Path, repo: str, commit: str) -> None:
        super().__init__(root, repo)
        self.pinned = commit
        try:
            self._git("cat-file", "-e", f"{commit}^{{commit}}")
        except subprocess.CalledProcessError:
            raise SystemExit(f"the mirror of {repo} lacks commit {commit}") from None

    @property
    def commit(self) -> str:
        return self.pinned

    def paths(self, pattern: str) -> list[str]:
        names = self._git("ls-tree", "-r", "--name-only", "-z", self.pinned).decode().split("\0")
        return sorted(n for n in names if n and re.search(pattern, n))

    def read(self, path: str) -> str:
        return self._git("show", f"{self.pinned}:{path}").decode("utf-8", "replace")


def open_mirror(root: Path, name: str) -> Mirror:
    """The mirror source `name` is read from: at its pinned commit if it has one, else HEAD."""
    repo = SOURCES[name][0]
    return Pinned(root, repo, PINNED[name]) if name in PINNED else Mirror(root, repo)


ASB_AUTHORS = "Zhang-Henry/AIOS_agent"
SOURCES: dict[str, tuple[str, Callable[[Mirror], list[str]]]] = {
    "bipia-text": ("microsoft/BIPIA", bipia("text_attack_test")),
    "bipia-code": ("microsoft/BIPIA", bipia("code_attack_test")),
    "tensor-trust-hijacking": (
        "HumanCompatibleAI/tensor-trust-data",
        tensor_trust("benchmarks/hijacking-robustness/v1/hijacking_robustness_dataset.jsonl"),
    ),
    "tensor-trust-extraction": (
        "HumanCompatibleAI/tensor-trust-data",
        tensor_trust("benchmarks/extraction-robustness/v1/extraction_robustness_dataset.jsonl"),
    ),
    "promptmap": ("utkusen/promptmap", promptmap),
    "llm-guard-tests": ("protectai/llm-guard", llm_guard),
    "agentdojo": ("sequrity-ai/agentdojo", agentdojo),
    "injecagent-dh": (ASB_AUTHORS, attacker_instructions("data/injecAgent.jsonl")),
    "asb-attack-tools": (ASB_AUTHORS, attacker_instructions("data/all_attack_tools.jsonl")),
    "greshake-llm-security": ("greshake/llm-security", greshake),
    "cheating-llm-benchmarks": ("sail-sg/Cheating-LLM-Benchmarks", cheating_llm),
    "robustjudge": ("S3IC-Lab/RobustJudge", robustjudge),
    "roastchain": ("ishaansbots/roastchain", roastchain),
    "promptfoo-cyberseceval": ("xiyouqishui/promptfoo", promptfoo_cyberseceval),
}
PINNED = {"injecagent-dh": "ef91ef3af8b5ca970b58bec49991cca5f1f0a3c0"}
"""Sources read at a commit of their history: the last commit of the ASB authors' repository
that still holds InjecAgent's direct-harm cases."""


SEEN_CHARS = 80
"""A held-out payload whose first this many characters, normalised (`seen_key`), are those of
a training payload is one the detector may have learnt: it is left out of the measure."""


def seen_key(text: str) -> str:
    """The start of `text` as compared with the training payloads: its words, lower-cased, one
    space apart, at most `SEEN_CHARS` characters."""
    return " ".join(re.findall(r"[^\W_]+", text.lower()))[:SEEN_CHARS]


def training_keys(root: Path) -> frozenset[str]:
    """`seen_key` of every payload the detector is trained on (its injection sources and the
    written ones, as `train_injection` reads them)."""
    return frozenset(seen_key(item.text) for item in injection_items(root, {}))


def payloads_of(root: Path, name: str, seen: frozenset[str]) -> tuple[str, list[str], int]:
    """Source `name`'s `github:repo@commit`, its distinct payloads (at most `PER_SOURCE`, taken
    evenly, those whose `seen_key` is in `seen` left out), and how many were left out.

    Raises SystemExit when its mirror is absent."""
    mirror = open_mirror(root, name)
    every = list(dict.fromkeys(t.strip() for t in SOURCES[name][1](mirror) if t.strip()))
    unseen = [t for t in every if seen_key(t) not in seen]
    return (
        f"github:{mirror.repo}@{mirror.commit}",
        evenly(unseen, PER_SOURCE),
        len(every) - len(unseen),
    )


def measure(
    root: Path,
    detector: Detector,
    names: Iterable[str] = SOURCES,
    seen: frozenset[str] = frozenset(),
) -> dict[str, object]:
    per_source: dict[str, dict[str, float]] = {}
    sources: dict[str, str] = {}
    skipped: list[str] = []
    totals = dict.fromkeys(WAYS, 0)
    by_carrier = {carrier: dict.fromkeys(WAYS, 0) for carrier in CARRIERS}
    count = 0
    for name in names:
        try:
            sources[name], payloads, left_out = payloads_of(root, name, seen)
        except SystemExit:
            skipped.append(name)
            continue
        mine = dict.fromkeys(WAYS, 0)
        for carrier, embed in CARRIERS.items():
            for payload in payloads:
                found = verdicts(embed(payload), WHERE[carrier], detector)
                for way in WAYS:
                    mine[way] += found[way]
                    by_carrier[carrier][way] += found[way]
        size = len(payloads) * len(CARRIERS)
        row: dict[str, float] = {"payloads": len(payloads), "seen_left_out": left_out}
        row.update({way: round(mine[way] / max(size, 1), 3) for way in WAYS})
        per_source[name] = row
        for way in WAYS:
            totals[way] += mine[way]
        count += size
        print(name, row, file=sys.stderr)
    overall = {way: round(totals[way] / max(count, 1), 3) for way in WAYS}
    share = max(count // len(CARRIERS), 1)
    per_carrier = {
        carrier: {way: round(hits[way] / share, 3) for way in WAYS}
        for carrier, hits in by_carrier.items()
    }
    return {
        "overall": overall,
        "per_source": per_source,
        "per_carrier": per_carrier,
        "sources": sources,
        "skipped": skipped,
    }


def source_names(parser: argparse.ArgumentParser, given: str | None) -> list[str]:
    """The sources a comma-separated `--sources` names (all when None); unknown ones are a
    usage error."""
    names = given.split(",") if given else list(SOURCES)
    unknown = sorted(set(names) - set(SOURCES))
    if unknown:
        parser.error(f"unknown sources {', '.join(unknown)}; known: {', '.join(SOURCES)}")
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--weights", type=Path)
    parser.add_argument("--sources", help="comma-separated source names (default: all)")
    parser.add_argument(
        "--keep-seen",
        action="store_true",
        help="keep the payloads that start as a training payload does (read no training source)",
    )
    args = parser.parse_args(argv)
    names = source_names(parser, args.sources)
    detector = detector_of(args.weights)
    result = {"detector": detector.version, "threshold": detector.threshold}
    seen = frozenset() if args.keep_seen else training_keys(args.mirrors)
    result.update(measure(args.mirrors, detector, names, seen))
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
