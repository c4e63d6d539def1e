"""The verifiability check: can a reviewer confirm the change independently? (pure: heuristics).

Every signal is a note; the heuristics and what each never flags are in docs/evidence.md
(Verifiability). The value is met / (met + missing); when nothing applies, `verifiability`
stays unscored.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from rubricate.evidence import file_kinds as kinds
from rubricate.evidence.code_lines import changes_code, comment_style, is_comment_text
from rubricate.evidence.file_kinds import not_authored
from rubricate.evidence.inline_tests import adds_inline_test
from rubricate.evidence.pinning import pinning_signal
from rubricate.evidence.prose import new_prose
from rubricate.evidence.results import CheckResult, check_result, short_list
from rubricate.evidence.signals import CHECK_ID, Signal, missing_signal
from rubricate.evidence.snapshot import FileChange, Snapshot

CRITERION = "verifiability"

RANDOMNESS = re.compile(
    r"\brandom\.(random|randint|randrange|choice|choices|shuffle|sample|uniform|gauss)\b|"
    r"\bnp\.random\.|\bnumpy\.random\b|\btorch\.(rand|randn|randint|randperm)\b|"
    r"Math\.random\(|\brand::|\brand\(\)|\btf\.random\.|\bshuffle\s*=\s*True"
)
RANDOM_HINTS = ("rand", "shuffle")
SEED = re.compile(
    r"\bseed\s*\(|\bseed\s*=|\brandom_state\s*=|manual_seed\(|RandomState\(\s*\d|"
    r"default_rng\(\s*\d|set_seed\(|seed_everything\(|PYTHONHASHSEED|\bsrand\(|SeedableRng|seed_from_u64"
)
HASH_LINE = re.compile(
    r"(sha-?(1|224|256|384|512)|md5|blake2\w*|checksum|hash|oid)\W{0,24}[0-9a-f]{32,128}", re.I
)
LINK = re.compile(
    r"https?://[^\s)>\]]+|\[[^\]]+\]\([^)\s]+\)|\[[^\]]+\]\[[^\]]*\]|`[^`]+<[^>\s]+>`_"
    r"|[:{](?:issue|pr|pull|gh|bug|cve|commit|user|ghissue|ghpull|rfc|pep)[}:]`"
    r"|(?<![\w&/])(?:[\w.-]+/[\w.-]+)?#\d+\b|\b(?:GH|gh|bpo)-\d+\b"
)
"""A link or reference to a source: a URL, a markdown or reStructuredText link, a role
(`{issue}`, `:pr:`, ...) or an issue reference (`#123`, `GH-123`, `owner/repo#123`)."""
OWN_NUMBER = re.compile(r"\s*\(#\d+\)\s*$")
"""A squash-merge subject's trailing `(#N)`: the pull request's own number, not a source."""
FENCE_ANYWHERE = re.compile(r"^\s{0,3}(```|~~~)", re.M)
PROSE_LINES = 10
PROSE_PER_CODE_LINE = 5
"""Prose beside code documents it while it is at most this many lines per changed code line."""
GO_PACKAGE = re.compile(r"^package\s+(\w+)", re.M)


def verifiability_check(snapshot: Snapshot) -> CheckResult:
    """Run every verifiability heuristic over the change."""
    live = [c for c in snapshot.changes if not c.deleted]
    signals = [heuristic(snapshot, live) for heuristic in HEURISTICS]
    met = [s for s in signals if s.state == "met"]
    missing = [s for s in signals if s.state == "missing"]
    counted = len(met) + len(missing)
    value = len(met) / counted if counted else None
    evidence = [f"{s.name}: {s.evidence}" for s in met]
    evidence += [f"note: missing {s.name}: {s.evidence}" for s in missing]
    evidence += [f"{s.name}: {s.note}" for s in signals if s.note]
    if value is None:
        evidence.append("no verifiability heuristic applies to this change")
    findings = [s.finding for s in missing if s.finding is not None]
    return check_result(
        CHECK_ID, findings, criterion=CRITERION, value=value, evidence=evidence, certain_value=1.0
    )


def tests_signal(snapshot: Snapshot, live: list[FileChange]) -> Signal:
    """Hand-written source changes need test changes beside them (fixtures are not tests)."""
    code = [c for c in live if kinds.is_source(c.path) and not kinds.is_example(c.path)]
    why = {c.path: reason for c in code if (reason := not_authored(c))}
    left_out = f"; {len(why)} generated, vendored or lock files not counted" if why else ""
    untested = _untested_support(code, snapshot.head_paths)
    why |= {path: f"in {folder}, which holds no tests" for path, folder in untested.items()}
    sources = [c.path for c in code if c.path not in why]
    note = f"not counted as source: {short_list([f'{p} ({r})' for p, r in why.items()])}"
    note = note if why else ""
    if not sources:
        return Signal("tests", "n/a", note=note)
    tests = [c.path for c in live if kinds.is_test(c.path) and not kinds.is_fixture(c.path)]
    tests += [c.path for c in code if c.path not in why and adds_inline_test(c)]
    if not tests:
        quiet = [p for p in sources if not changes_code(_by_path(live, p))]
        sources = [p for p in sources if p not in quiet]
        if quiet:
            note = f"{note}; " if note else ""
            note += f"only comments, docstrings or blank lines change in {short_list(quiet)}"
        if not sources:
            return Signal("tests", "n/a", note=note)
    if tests:
        counted = f"{_files(len(tests), 'test')} for {_files(len(sources), 'source')}{left_out}"
        return Signal("tests", "met", f"{counted}: {short_list(tests)}", note=note)
    message = (
        f"{_files(len(sources), 'source')} changed without a test change{left_out}: "
        f"{short_list(sources)}"
    )
    return replace(missing_signal("tests", message, sources[0]), note=note)


def _untested_support(code: list[FileChange], head_paths: frozenset[str]) -> dict[str, str]:
    """The changed code in documentation, scripts and agent skill folders that hold no test, by
    path, with its folder: code there serves the project (examples, recipes, docs builds,
    scripts, an agent's tools). Where
    test code lies in such a folder, or the folder is a package (a Python `__init__.py`, a Go
    package other than `main`), the project imports or tests its code, and it is program
    source."""
    roots, skills = kinds.package_roots(head_paths), kinds.skill_folders(head_paths)
    placed = {c.path: f for c in code if (f := kinds.support_folder(c.path, roots, skills))}
    if not placed:
        return {}
    folders = set(placed.values())
    tests = [p for p in head_paths if kinds.is_test(p) and kinds.extension(p) in kinds.SOURCE_EXTS]
    libraries = [c.path for c in code if c.path in placed and _go_library(c)]
    kept = {f for f in folders if f + "__init__.py" in head_paths}
    kept |= {f for p in [*tests, *libraries] for f in folders if p.startswith(f)}
    return {path: folder for path, folder in placed.items() if folder not in kept}


def _go_library(change: FileChange) -> bool:
    """True for a Go file of a package other than `main` (a library other code imports)."""
    found = GO_PACKAGE.search(change.text or "") if change.path.endswith(".go") else None
    return found is not None and found.group(1) not in ("main", "main_test")


def _by_path(live: list[FileChange], path: str) -> FileChange:
    return next(c for c in live if c.path == path)


def _files(count: int, kind: str) -> str:
    return f"{count} {kind} file" if count == 1 else f"{count} {kind} files"


def fixtures_signal(snapshot: Snapshot, live: list[FileChange]) -> Signal:
    """Test fixtures count for the change when present."""
    fixtures = [c.path for c in live if kinds.is_fixture(c.path)]
    if fixtures:
        return Signal("fixtures", "met", short_list(fixtures))
    return Signal("fixtures", "n/a")


def example_signal(snapshot: Snapshot, live: list[FileChange]) -> Signal:
    """A runnable example counts for the change when present."""
    examples = [c.path for c in live if kinds.is_example(c.path)]
    blocks = [c.path for c in live if kinds.is_doc(c.path) and _adds_code_block(c)]
    found = examples + blocks
    if found:
        return Signal("runnable example", "met", short_list(found))
    return Signal("runnable example", "n/a")


def _adds_code_block(change: FileChange) -> bool:
    text = change.added_text
    return ("```" in text or "~~~" in text) and FENCE_ANYWHERE.search(text) is not None


def seeds_signal(snapshot: Snapshot, live: list[FileChange]) -> Signal:
    """Randomness in added code needs a seed in the same file."""
    unseeded: list[tuple[str, int]] = []
    seeded: list[str] = []
    for change in live:
        text = change.added_text
        if not any(hint in text for hint in RANDOM_HINTS) or RANDOMNESS.search(text) is None:
            continue
        if not (kinds.is_source(change.path) or kinds.is_test(change.path)) and not (
            kinds.is_test_helper(change.path)
        ):
            continue  # a snippet in a document or a data file is not code that runs
        if not_authored(change):
            continue  # a generated, vendored or minified file: its authors seed it, or not
        if kinds.is_type_test(change.path):
            continue  # type-checked, never run: randomness there only makes a type
        style = comment_style(change.path)
        uses = [
            n
            for n, line in change.added
            if RANDOMNESS.search(line) and not (style and is_comment_text(line, style))
        ]
        if not uses:
            continue
        use = uses[0]
        if SEED.search(change.text or ""):
            seeded.append(change.path)
        else:
            unseeded.append((change.path, use))
    if unseeded:
        path, line = unseeded[0]
        return missing_signal(
            "seeds",
            f"randomness without a seed: {short_list([p for p, _ in unseeded])}",
            path,
            line,
        )
    if seeded:
        return Signal("seeds", "met", f"seed set in {short_list(seeded)}")
    return Signal("seeds", "n/a")


def checksums_signal(snapshot: Snapshot, live: list[FileChange]) -> Signal:
    """Data files need checksums or hashes."""
    data = [c.path for c in live if kinds.is_data(c.path)]
    if not data:
        return Signal("checksums", "n/a")
    proof = [c.path for c in live if kinds.is_checksum(c.path) or c.path.endswith(".dvc")]
    proof += [c.path for c in live if _has_hash(c)]
    if HASH_LINE.search(snapshot.body):
        proof.append("the PR body")
    if proof:
        return Signal("checksums", "met", short_list(proof))
    return missing_signal(
        "checksums", f"data files without checksums or hashes: {short_list(data)}", data[0]
    )


def _has_hash(change: FileChange) -> bool:
    text = change.text or ""
    return text.startswith("version https://git-lfs") or bool(HASH_LINE.search(change.added_text))


def sources_signal(snapshot: Snapshot, live: list[FileChange]) -> Signal:
    """Added prose needs sources: links in the PR body or in the prose, or the code that the
    same change changes (the prose documents it, and a reviewer checks one against the other),
    unless the prose far outnumbers that code's changed lines (a one-line edit documents no
    forty lines of claims)."""
    docs = [
        c
        for c in live
        if kinds.is_doc(c.path) and kinds.extension(c.path) != "txt" and not kinds.is_policy(c.path)
    ]
    prose = sum(new_prose(c, snapshot.removed_lines) for c in docs)
    if prose < PROSE_LINES:
        return Signal("sources", "n/a")
    linked = [c.path for c in docs if LINK.search(c.added_text)]
    if LINK.search(OWN_NUMBER.sub("", snapshot.title)) or LINK.search(snapshot.body):
        linked.insert(0, "the PR body")
    if linked:
        return Signal("sources", "met", f"links in {short_list(linked)}")
    code = [c for c in live if kinds.is_source(c.path) and changes_code(c)]
    if code and prose <= PROSE_PER_CODE_LINE * sum(c.additions + c.deletions for c in code):
        changed = short_list([c.path for c in code])
        note = f"{prose} lines of prose beside the code they document: {changed}"
        return Signal("sources", "n/a", note=note)
    return missing_signal(
        "sources", f"{prose} lines of prose added without links to sources", docs[0].path
    )


HEURISTICS: tuple[Callable[[Snapshot, list[FileChange]], Signal], ...] = (
    tests_signal,
    fixtures_signal,
    example_signal,
    seeds_signal,
    checksums_signal,
    sources_signal,
    pinning_signal,
)
