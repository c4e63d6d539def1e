"""The pinned-dependencies heuristic of the verifiability check (pure: heuristics).

Dependency lines change in a manifest -> a lockfile changes, or every added dependency line
names an exact version (`==`, `@ <url>`, `--hash` in Python manifests and requirements files;
`"1.2.3"` in package.json; `"=1.2.3"` in Cargo.toml; go.mod always). A manifest whose
repository keeps no lockfile beside it or in a folder above (head tree paths) is left alone:
ranges are then the project's choice (libraries commit no lockfile); so is a manifest in a
hidden folder below the lockfile (`.github/tool/pyproject.toml`). A package.json's
`peerDependencies` are no dependency lines: they state the versions a consumer may bring, which
no lockfile of the package resolves. A missing pin is a note.
"""

from __future__ import annotations

import re

from rubricate.evidence import file_kinds as kinds
from rubricate.evidence.results import short_list
from rubricate.evidence.signals import Signal, missing_signal
from rubricate.evidence.snapshot import DOUBLE_QUOTED, FileChange, Snapshot, text_lines

DEPENDENCY_LINES: dict[str, re.Pattern[str]] = {
    "requirements": re.compile(r"^\s*[A-Za-z0-9][\w.\-\[\],]*\s*(==|>=|<=|~=|!=|>|<|@|;|$)"),
    "python": re.compile(
        r"[\"'][A-Za-z0-9][\w.\-]*(\[[^\]]*\])?\s*(===?|>=|<=|~=|!=|>|<|@)[^\"']*[\"']"
    ),
    "package.json": re.compile(
        r"^\s*\"(?!version\"|name\"|main\"|types\"|module\"|engines\")[@\w./-]+\"\s*:\s*\"[\^~<>=v]*\d"
    ),
    "cargo.toml": re.compile(
        r"^\s*(?!version\b|edition\b|name\b|rust-version\b)[\w-]+\s*=\s*(\{[^}]*version|\"[\^~<>=]*\d)"
    ),
    "go.mod": re.compile(r"^\s*(require\s+)?[\w.-]+\.\w+/\S+\s+v\d"),
    "gemfile": re.compile(r"^\s*gem\s+[\"']"),
    "environment": re.compile(r"^\s*-\s*[\w.-]+\s*[=<>]"),
}
UNLOCKED_SECTIONS = frozenset({"peerDependencies", "peerDependenciesMeta"})
"""package.json sections whose ranges no lockfile of the package resolves."""
JSON_TOKEN = re.compile(rf"({DOUBLE_QUOTED.pattern})\s*:|{DOUBLE_QUOTED.pattern}|[{{}}\[\]]")
"""A key, a string or a bracket of JSON text."""
PINNED = re.compile(r"===?|\s@\s|--hash")
EXACT: dict[str, re.Pattern[str]] = {
    "package.json": re.compile(r':\s*"v?\d+(\.\d+)*([-+][\w.]+)?"\s*,?\s*$'),
    "cargo.toml": re.compile(r'"=\s*\d'),
    "go.mod": re.compile(r"\sv\d"),  # go.mod names exact versions (go.sum locks them)
}
"""An exact version in a manifest family's dependency line; `PINNED` for the others."""


def pinning_signal(snapshot: Snapshot, live: list[FileChange]) -> Signal:
    """Dependency changes need a lockfile change or pinned versions."""
    changed = {
        c.path: lines for c in live if kinds.is_manifest(c.path) and (lines := _dependency_lines(c))
    }
    if not changed:
        return Signal("pinned dependencies", "n/a")
    locks = [c.path for c in live if kinds.is_lockfile(c.path)]
    if locks:
        return Signal("pinned dependencies", "met", f"lockfile {short_list(locks)}")
    unpinned = [
        p
        for p, lines in changed.items()
        if not all(EXACT.get(_manifest_family(p), PINNED).search(t) for t in lines)
    ]
    if not unpinned:
        return Signal(
            "pinned dependencies", "met", f"pinned versions in {short_list(list(changed))}"
        )
    kept = _kept_locks(snapshot.head_paths)
    locked = [p for p in unpinned if any(_above(lock, p) for lock in kept)]
    if not locked:
        note = f"no lockfile kept for {short_list(unpinned)}: ranges are the project's choice"
        return Signal("pinned dependencies", "n/a", note=note)
    return missing_signal(
        "pinned dependencies",
        f"dependencies change without their lockfile: {short_list(locked)}",
        locked[0],
    )


def _kept_locks(head_paths: frozenset[str]) -> list[str]:
    """The lockfiles the repository keeps (head tree paths)."""
    return [p for p in head_paths if kinds.is_lockfile(p)]


def _above(lock: str, manifest: str) -> bool:
    """True when `lock` lies in the manifest's folder, or in a folder above it with no hidden
    folder between them (a heuristic: workspace globs such as `packages/*` do not match
    `.github/...`, so a lockfile up there most likely locks another project; a workspace that
    lists a hidden folder by name is not told apart)."""
    folder = lock.rpartition("/")[0]
    prefix = folder + "/" if folder else ""
    if not manifest.startswith(prefix):
        return False
    between = manifest[len(prefix) :].split("/")[:-1]
    return not any(part.startswith(".") for part in between)


def _dependency_lines(change: FileChange) -> list[str]:
    family = _manifest_family(change.path)
    pattern = DEPENDENCY_LINES[family]
    unlocked = _unlocked_lines(change.text or "") if family == "package.json" else frozenset()
    return [
        t
        for n, t in change.added
        if t.strip() and not t.lstrip().startswith("#") and pattern.search(t) and n not in unlocked
    ]


def _unlocked_lines(text: str) -> frozenset[int]:
    """Line numbers of a package.json whose first token lies in a top-level section no lockfile
    resolves (`UNLOCKED_SECTIONS`), read token by token: a key at depth 1 anywhere on a line
    opens its section (`"peerDependencies": {...}, "dependencies": {` ends in
    `dependencies`)."""
    found: set[int] = set()
    depth, section = 0, ""
    for number, line in enumerate(text_lines(text), 1):
        first = True
        for token in JSON_TOKEN.finditer(line):
            if token[1] is not None and depth == 1:
                section = token[1][1:-1]
            if first and depth >= 1 and section in UNLOCKED_SECTIONS:
                found.add(number)
            first = False
            depth += (token[0] in "{[") - (token[0] in "}]")
    return frozenset(found)


def _manifest_family(path: str) -> str:
    name = kinds.basename(path).lower()
    if name.startswith("requirements"):
        return "requirements"
    if name in ("package.json", "composer.json"):
        return "package.json"
    if name in ("cargo.toml", "go.mod", "gemfile"):
        return name
    if name.startswith("environment") or name == "pubspec.yaml":
        return "environment"
    return "python"
