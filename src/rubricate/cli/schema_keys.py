"""Deliverables that name their schema with a `$schema` key, for `rubricate init`.

A JSON file's top-level `"$schema"`, a YAML file's `# yaml-language-server: $schema=...`
comment or top-level `$schema:` key names the schema it follows. A name that resolves to a
schema file in the repository (relative to the file's folder, else to the root; `file:` too)
makes the file a deliverable of that schema, once the schema compiles and the file matches it
today; files are grouped into the fewest globs that match no other file. A URL is never
fetched: a JSON Schema meta-schema marks the file as a schema itself, any other URL is a note.

Only regular `.json`/`.yaml`/`.yml` files under `MAX_READ_BYTES` are read, never a symlink,
lockfile, vendored folder, generated file, JSON-with-comments file or `*.schema.json`; a file
that does not decode or parse is skipped.
"""

from __future__ import annotations

import json
import re
import stat
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from posixpath import dirname, join, normpath
from urllib.parse import unquote, urlsplit

from rubricate.errors import ConfigError, ParseProblem
from rubricate.evidence.file_kinds import (
    HEAD_BYTES,
    MARKER,
    VENDOR_DIRS,
    basename,
    glob_escape,
    is_lockfile,
    structured_kind,
)
from rubricate.evidence.structured import parse_structured

MAX_READ_BYTES = 256 * 1024
MAX_SCHEMA_BYTES = 8 * 1024 * 1024
MAX_GLOBS = 8
"""Globs proposed per schema; a note counts the rest."""
MAX_NOTES = 6
META_HOSTS = frozenset({"json-schema.org", "www.json-schema.org"})
YAML_MODELINE = re.compile(r"^[ \t]*#[ \t]*yaml-language-server:[ \t]*\$schema=(\S+)", re.M)
YAML_KEY = re.compile(r"""^["']?\$schema["']?[ \t]*:[ \t]*["']?([^"'\s#]+)""", re.M)


@dataclass(frozen=True)
class KeyFindings:
    """Globs and their schemas, and notes on what was named but cannot be checked."""

    deliverables: tuple[tuple[str, str], ...]
    notes: tuple[str, ...]
    keyed: frozenset[str] = frozenset()
    """Every file that names a schema with `$schema` (its key wins over a name pairing)."""
    schemas: int = 0  # schemas of the repository that files name
    covered: int = 0  # of those, the schemas with a proposed deliverable


def schema_key(path: str, raw: bytes) -> str | None:
    """The `$schema` a JSON or YAML file's text names at its top level, or None (pure)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if structured_kind(path) == "yaml":
        found = YAML_MODELINE.search(text) or YAML_KEY.search(text)
        return found.group(1) if found else None
    if '"$schema"' not in text:
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    value = data.get("$schema") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def resolve(path: str, value: str, files: frozenset[str], root: str = "") -> tuple[str, str]:
    """What a `$schema` value names from a file at `path` (pure): `("local", PATH)`,
    `("meta", URL)`, `("remote", URL)`, `("missing", PATH)` or `("outside", VALUE)`."""
    parts = urlsplit(value)
    if parts.scheme in ("http", "https"):
        return ("meta" if parts.hostname in META_HOSTS else "remote"), value
    if parts.scheme == "file":
        value = unquote(parts.path)
        top = root.rstrip("/") + "/"
        if value.startswith("/") and not (root and value.startswith(top)):
            return "outside", value
        value = "/" + value[len(top) :] if root and value.startswith(top) else value
    elif parts.scheme or not value.split("#", 1)[0]:
        return "outside", value
    name = value.split("#", 1)[0]
    beside = normpath(join(dirname(path), name)) if not name.startswith("/") else None
    from_root = normpath(name.lstrip("/"))
    for target in (beside, from_root):
        if target is not None and target in files:
            return "local", target
    target = beside or from_root
    return ("outside", value) if target == ".." or target.startswith("../") else ("missing", target)


def readable(path: str) -> bool:
    """Whether a path is worth reading for a `$schema` key (by name only)."""
    folders = path.split("/")[:-1]
    return (
        structured_kind(path) is not None
        and not path.endswith(".schema.json")
        and not is_lockfile(path)
        and not any(part.lower() in VENDOR_DIRS for part in folders)
    )


def read_capped(root: Path, path: str, limit: int) -> bytes | None:
    """A regular file's bytes (never via a symlink nor out of `root`); None over `limit` bytes."""
    try:
        info = (root / path).lstat()
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        if not (root / path).resolve().is_relative_to(root.resolve()):
            return None  # a symlinked folder on the way (a schema's $ref can name one)
        return (root / path).read_bytes()
    except OSError:
        return None


def find(root: Path, paths: Iterable[str]) -> KeyFindings:
    """Every `$schema`-named deliverable under `root`; `paths` are all its walked files."""
    files = frozenset(paths)
    top = root.resolve().as_posix()
    named: dict[str, tuple[str, str]] = {}
    for path in sorted(p for p in files if readable(p)):
        raw = read_capped(root, path, MAX_READ_BYTES)
        value = schema_key(path, raw) if raw is not None else None
        head = (raw or b"")[:HEAD_BYTES].decode("utf-8", "replace")
        if value is not None and not MARKER.search(head):
            named[path] = resolve(path, value, files, top)
    schemas = {target for kind, target in named.values() if kind == "local"}
    by_schema: dict[str, list[str]] = defaultdict(list)
    unchecked: list[str] = []
    for path, (kind, target) in named.items():
        if kind == "local" and path not in schemas:
            by_schema[target].append(path)
        elif kind in ("remote", "missing"):
            unchecked.append(_note(path, kind, target))
    found, notes = _proposals(root, files, named, by_schema)
    shown = (*_shorten(notes), *_shorten(unchecked))
    covered = len({schema for _, schema in found})
    return KeyFindings(tuple(found), shown, frozenset(named), len(by_schema), covered)


def _proposals(
    root: Path,
    files: frozenset[str],
    named: dict[str, tuple[str, str]],
    by_schema: dict[str, list[str]],
) -> tuple[list[tuple[str, str]], list[str]]:
    """The globs of every schema in path order (at most `MAX_GLOBS` each); notes on the rest."""
    found: list[tuple[str, str]] = []
    notes: list[str] = []
    for schema in sorted(by_schema):
        check = SchemaCheck(root, schema, named)
        good = check.members(by_schema[schema])
        notes += check.notes
        globs = cover(good, files, check.fine) if good else []
        found += [(glob, schema) for glob in globs[:MAX_GLOBS]]
        if len(globs) > MAX_GLOBS:
            notes.append(f"{len(globs) - MAX_GLOBS} more globs of files that name {schema}")
    return found, notes


def _note(path: str, kind: str, target: str) -> str:
    if kind == "remote":
        return f"{path} names a remote schema ({target}); vendor it to check it"
    return f"{path} names {target}, which is not in the repository"


def _shorten(notes: list[str]) -> list[str]:
    if len(notes) <= MAX_NOTES:
        return notes
    return [*notes[: MAX_NOTES - 1], f"... and {len(notes) - MAX_NOTES + 1} more like these"]


class SchemaCheck:
    """One schema compiled as `rubricate validate` compiles it, and which files match it."""

    def __init__(self, root: Path, schema: str, named: dict[str, tuple[str, str]]) -> None:
        # Imported here: these pull jsonschema and referencing, needed only when a schema is found.
        from rubricate.evidence.deliverable_schemas import CompiledSchema, compile_schema
        from rubricate.evidence.schema_refs import SchemaFiles

        def read(path: str) -> bytes | None:
            inside = normpath(path) == path and not path.startswith("../")
            return read_capped(root, path, MAX_SCHEMA_BYTES) if inside else None

        self.root, self.schema, self.named = root, schema, named
        self.notes: list[str] = []
        self._seen: dict[str, bool] = {}
        self.compiled: CompiledSchema | None = None
        files = SchemaFiles(read)
        try:
            self.compiled = compile_schema(files.contents(schema), schema, files, schema)
        except (ConfigError, ValueError) as exc:
            self.notes.append(f"{schema} does not compile: {exc}")
        except Exception as exc:
            self.notes.append(f"{schema} does not compile: {type(exc).__name__}: {exc}")

    def members(self, paths: list[str]) -> list[str]:
        """The files naming the schema that match it today; a note names the others."""
        if self.compiled is None:
            return []
        bad = [path for path in paths if not self.valid(path)]
        if bad:
            more = f" and {len(bad) - 1} more" if len(bad) > 1 else ""
            self.notes.append(
                f"{len(bad)} file(s) name {self.schema} but do not match it today "
                f"(a glob may take them in): {bad[0]}{more}"
            )
        return [path for path in paths if path not in bad]

    def fine(self, path: str) -> bool:
        """A file a glob may take in: it names this schema (even if it does not match it yet, a
        note says so), or names no schema and matches this one."""
        kind, target = self.named.get(path, ("", ""))
        if kind == "local":
            return target == self.schema
        return kind != "meta" and readable(path) and self.valid(path)

    def valid(self, path: str) -> bool:
        """Whether a file parses and matches the schema (each file checked once)."""
        if path not in self._seen and self.compiled is not None:
            raw = read_capped(self.root, path, MAX_READ_BYTES)
            try:
                text = raw.decode("utf-8") if raw is not None else None
                kind = structured_kind(path) or "json"
                data = parse_structured(kind, text, path).data if text is not None else None
                self._seen[path] = text is not None and not self.compiled.issues(data)
            except (ParseProblem, UnicodeDecodeError, ConfigError):
                self._seen[path] = False
        return self._seen.get(path, False)


def _suffixes(name: str) -> list[str]:
    """`*.a.json`-style endings of a file name, longest first, then the name itself (the
    literal parts escaped for a glob)."""
    dots = [i for i, char in enumerate(name) if char == "." and i > 0]
    return ["*" + glob_escape(name[i:]) for i in dots] + [glob_escape(name)]


def _literal(pattern: str) -> int:
    """How specific a glob is: its characters that are neither wildcards nor slashes."""
    return len(pattern.replace("*", "").replace("/", ""))


def _patterns(path: str, endings: set[str] | None = None) -> Iterable[str]:
    """The globs of a file's shapes, for each ending (`*.END` or its name): `DIR/**/END`
    for each folder above it, `DIR/END`, and `DIR/END` with one of its folders a `*`."""
    folders = [glob_escape(folder) for folder in path.split("/")[:-1]]
    for ending in _suffixes(basename(path)):
        if endings is not None and ending not in endings:
            continue
        yield "/".join([*folders, ending])
        for depth in range(len(folders) + 1):
            yield "".join(f + "/" for f in folders[:depth]) + "**/" + ending
            if depth < len(folders):
                yield "/".join([*folders[:depth], "*", *folders[depth + 1 :], ending])


def cover(
    members: Iterable[str], files: Iterable[str], fine: Callable[[str], bool] = lambda _: False
) -> list[str]:
    """Few globs (greedy: widest, then the most specific) that match every
    member and no file but those `fine` takes in (at most as many as the members they cover),
    then the members left (pure)."""
    wanted = set(members)
    covers: dict[str, set[str]] = defaultdict(set)
    for path in wanted:
        for pattern in _patterns(path):
            covers[pattern].add(path)
    endings = {p.rsplit("/", 1)[-1] for p in covers}
    others: dict[str, set[str]] = defaultdict(set)
    for path in set(files) - wanted:
        for pattern in _patterns(path, endings):
            if pattern in covers:
                others[pattern].add(path)
    candidates = {p for p, m in covers.items() if len(m) > 1 and len(others[p]) <= len(m)}
    chosen: list[str] = []
    left = set(wanted)
    while left:
        ranked = sorted(candidates, key=lambda p: (-len(covers[p] & left), -_literal(p), len(p), p))
        best = next((p for p in ranked if all(fine(o) for o in sorted(others[p]))), None)
        if best is None or len(covers[best] & left) < 2:
            break
        chosen.append(best)
        candidates.discard(best)
        left -= covers[best]
    return chosen + sorted(glob_escape(path) for path in left)
