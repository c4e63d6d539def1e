"""Files an AgentV eval file refers to, read inside the repository only (pure: uses `read`).

AgentV splices `include:` entries of an assertion list (a template name looked up as
`.agentv/templates/NAME.yaml`, or a path) and `tests: file://cases.yaml` references into the
file (AgentV `packages/core/src/evaluation/loaders/grader-parser.ts` at 58f316c, lines 313-447:
at most 3 levels of includes, a cycle is an error; `yaml-parser.ts` lines 2550-2600 and
`loaders/case-file-loader.ts` lines 556-600 for case files). rubricate never opens a file
itself: the caller passes `read(path) -> text`. A reference is resolved against the directory
of the file that holds it; one that is absolute, a URL, or climbs out of the repository is
refused before anything is read. A referenced file over the source limit (1 MiB, as for rubric
files; JSONL case files too) is refused before it is parsed, and so is one that takes the files
an eval file reads past `MAX_REFERENCED_BYTES` in all.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from rubricate.errors import FileReferenceError, SourceError, read_problem
from rubricate.rubric.agentv.templates import Env, render_env
from rubricate.rubric.located import Located
from rubricate.yamlsource import SOURCE_LIMIT, Locator, Problems, load_located

ReadFile = Callable[[str], str]
RefError = FileReferenceError
FILE_SCHEME = "file://"
MAX_INCLUDE_DEPTH = 3
MAX_REFERENCED_BYTES = 4 * 1024 * 1024
"""The most bytes of referenced files (case files, templates) one eval file may read in all."""
TEMPLATE_DIR = ".agentv/templates"
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")
_GLOB = re.compile(r"[*?\[{]")


@dataclass
class References:
    """Follows references from one eval file; every file read gets its own `Problems`."""

    source: str
    read: ReadFile | None
    sources: list[Problems] = field(default_factory=list)
    env: Env | None = None
    """The values of the `{{ env.X }}` names the config allows (see `templates`)."""
    included: int = 0
    """How many assertion entries `include:` has spliced in so far (see `includes`)."""
    read_bytes: int = 0
    """How many bytes of referenced files have been read so far."""

    def resolve(self, base: str, ref: str) -> str:
        """The path `ref` names, relative to the file `base`; raise `RefError` when refused."""
        raw = ref.strip()
        raw = raw[len(FILE_SCHEME) :] if raw.startswith(FILE_SCHEME) else raw
        if not raw:
            raise RefError("an empty reference names no file")
        if _URL.match(raw):
            raise RefError(f"{ref!r} is a URL; only files inside the repository are read")
        if raw.startswith(("/", "\\")) or _WINDOWS_DRIVE.match(raw):
            raise RefError(f"{ref!r} is an absolute path; use a path inside the repository")
        if _GLOB.search(raw):
            raise RefError(f"{ref!r} is a glob pattern; rubricate reads named files only")
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(base), raw))
        if joined == ".." or joined.startswith("../"):
            raise RefError(f"{ref!r} points outside the repository")
        return joined

    def text(self, path: str) -> str:
        """The text of a referenced file; raise `RefError` when it cannot be read."""
        if self.read is None:
            raise RefError(f"cannot read {path}: no file reader was given")
        try:
            text = self.read(path)
        except PermissionError:
            raise RefError(f"{path}: outside the repository or not readable") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise RefError(f"{path}: {read_problem(exc)}") from None
        except ValueError as exc:
            raise RefError(f"cannot read {path}: {exc}") from None
        self._count(path, text)
        return text

    def _count(self, path: str, text: str) -> None:
        """Refuse a referenced file over the source limit, or one past the file's budget."""
        limit = SOURCE_LIMIT.get()
        size = len(text) if len(text) > limit else len(text.encode("utf-8", "replace"))
        if size > limit:
            raise RefError(
                f"{path} is too large: {size} bytes, over the {limit}-byte limit for a "
                "referenced file (refused before parsing)"
            )
        self.read_bytes += size
        if self.read_bytes > MAX_REFERENCED_BYTES:
            raise RefError(
                f"{path}: the files this eval file refers to exceed {MAX_REFERENCED_BYTES} "
                "bytes in all (refused before parsing)"
            )

    def load(self, path: str) -> Located:
        """Parse a referenced YAML or JSONL file into located data with its own problems."""
        text = self.text(path)
        if path.endswith(".jsonl"):
            return self._jsonl(text, path)
        try:
            data, locator = load_located(text, path)
        except SourceError as exc:
            raise RefError(f"{path}: {exc.diagnostics[0].message}") from None
        problems = Problems(locator)
        self.sources.append(problems)
        return render_env(Located(data, (), problems), self.env)

    def _jsonl(self, text: str, path: str) -> Located:
        locator = Locator(path)
        rows = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except ValueError as exc:
                raise RefError(f"{path}:{number}: not a JSON object: {exc}") from None
            locator.values[(len(rows) - 1,)] = (number, 1)
        problems = Problems(locator)
        self.sources.append(problems)
        return render_env(Located(rows, (), problems), self.env)

    def template(self, base: str, name: str) -> tuple[str, Located]:
        """An `include:` target: a template name under `.agentv/templates/`, or a path."""
        if "/" in name or "\\" in name or name.startswith("."):
            path = self.resolve(base, name)
            return path, self.load(path)
        tried = []
        for directory in _ancestors(posixpath.dirname(base)):
            for suffix in (".yaml", ".yml"):
                candidate = posixpath.join(directory, TEMPLATE_DIR, name + suffix)
                tried.append(candidate)
                try:
                    return candidate, self.load(candidate)
                except RefError as exc:
                    if "no such file" not in str(exc) and "outside" not in str(exc):
                        raise
        raise RefError(f"assertion template {name!r} not found (tried {', '.join(tried[:4])})")


def _ancestors(directory: str) -> list[str]:
    """The directory, then each parent up to the repository root."""
    found = []
    current = posixpath.normpath(directory) if directory else "."
    while True:
        found.append("" if current == "." else current)
        if current in (".", "/", ""):
            return found
        parent = posixpath.dirname(current)
        current = parent or "."
