"""The judge's token budget: offline estimates, excluded files, relevance order, and what is
shown of a file (pure: no I/O).

Tokens are estimated without a tokenizer download: one token per 3 bytes of UTF-8, which
over-counts English prose (about 4 characters a token) and code, and counts one token per
CJK character, so a prompt that fits the estimate fits the model.
"""

from __future__ import annotations

import math
import posixpath
import re
from dataclasses import dataclass

from rubricate.config import JudgeConfig
from rubricate.evidence.snapshot import FileChange

BYTES_PER_TOKEN = 3
MESSAGE_OVERHEAD_TOKENS = 8
MIN_USEFUL_TOKENS = 120
"""A file is truncated into the space left only when at least this much is left."""

LOCKFILES = frozenset(
    {
        "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lockb",
        "poetry.lock", "pipfile.lock", "uv.lock", "pdm.lock", "cargo.lock", "gemfile.lock",
        "composer.lock", "go.sum", "flake.lock", "mix.lock", "pubspec.lock", "podfile.lock",
        "packages.lock.json", "gradle.lockfile", "conan.lock", "deno.lock", "cartfile.resolved",
        "package.resolved", "paket.lock", "shrinkwrap.yaml", "requirements.lock",
    }
)  # fmt: skip
VENDOR_DIRS = frozenset(
    {"vendor", "vendored", "_vendor", "third_party", "third-party", "thirdparty", "node_modules",
     ".yarn", "bower_components", "jspm_packages", "site-packages", ".venv", "venv"}
)  # fmt: skip
TOP_GENERATED_DIRS = frozenset({"dist", "build", "out-tsc", ".next", "coverage", "htmlcov"})
GENERATED_DIRS = frozenset({"__generated__", "generated", "__snapshots__", "__pycache__"})
GENERATED_SUFFIXES = (
    ".min.js", ".min.css", ".map", "_pb2.py", "_pb2_grpc.py", ".pb.go", ".pb.cc", ".pb.h",
    ".g.dart", ".freezed.dart", ".designer.cs", ".generated.ts", ".generated.js", ".snap",
    ".pyc",
)  # fmt: skip
BINARY_SUFFIXES = (
    ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".webp", ".pdf", ".zip", ".gz", ".tgz",
    ".bz2", ".xz", ".7z", ".jar", ".war", ".whl", ".so", ".dylib", ".dll", ".exe", ".bin",
    ".class", ".o", ".a", ".woff", ".woff2", ".ttf", ".otf", ".eot", ".mp3", ".mp4", ".mov",
    ".wav", ".ogg", ".sqlite", ".db", ".parquet", ".npy", ".pkl", ".onnx", ".pt",
)  # fmt: skip
_GENERATED_MARK = re.compile(
    r"@generated\b|\bDO NOT EDIT\b|\bauto-?generated\b|"
    r"this file (?:is|was) (?:automatically )?generated",
    re.IGNORECASE,
)
_TEST_PATH = re.compile(
    r"(^|/)(tests?|spec|__tests__)/|(^|/)test_[^/]*$|_test\.[^/]+$|\.(test|spec)\."
)
_DIFF_HEADERS = ("@@", "diff --git", "index ", "--- ", "+++ ")
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)")
_HEAD_CHARS = 8000
"""How much of a file is read to tell binary (a NUL byte, as git does) and generated files."""
_DOC_SUFFIXES = (".md", ".rst", ".txt", ".adoc")
_CONFIG_PREFIXES = (".github/", ".gitlab/", ".circleci/")


@dataclass(frozen=True)
class Budget:
    """Input-token limits for one judge call."""

    max_input_tokens: int = 32000
    max_file_share: float = 0.25
    """One file may use at most this share of the budget; larger patches are truncated."""
    left_out_share: float = 0.05
    """The list of files not shown may use at most this share."""
    request_share: float = 0.4
    """With files to show, the spec and the PR description may each use at most this share."""
    max_output_tokens: int = 4096
    """The ceiling on one call's `max_tokens` (`judge.max_output_tokens`)."""
    open_ceiling: float = 150
    """The highest score on an open scale (`judge.open_scale_ceiling`)."""

    @classmethod
    def from_settings(cls, settings: JudgeConfig) -> Budget:
        """The budget configured in `judge.max_input_tokens`, `judge.max_output_tokens` and
        `judge.open_scale_ceiling`."""
        return cls(
            max_input_tokens=settings.max_input_tokens,
            max_output_tokens=settings.max_output_tokens,
            open_ceiling=settings.open_scale_ceiling,
        )

    @property
    def max_file_tokens(self) -> int:
        """The most tokens one file may take."""
        return max(MIN_USEFUL_TOKENS, int(self.max_input_tokens * self.max_file_share))

    @property
    def request_field_tokens(self) -> int:
        """The most tokens the spec or the PR description may take beside the files."""
        return max(MIN_USEFUL_TOKENS, int(self.max_input_tokens * self.request_share))

    @property
    def left_out_tokens(self) -> int:
        """Tokens kept back for the list of files not shown."""
        return max(MIN_USEFUL_TOKENS, int(self.max_input_tokens * self.left_out_share))


@dataclass(frozen=True)
class LeftOut:
    """A changed file the judge did not see, and why."""

    path: str
    reason: str

    def as_dict(self) -> dict[str, str]:
        """The `{path, reason}` JSON shape."""
        return {"path": self.path, "reason": self.reason}


def estimate_tokens(text: str) -> int:
    """A conservative offline token count: one token per 3 bytes of UTF-8."""
    return math.ceil(len(text.encode("utf-8", "replace")) / BYTES_PER_TOKEN)


def exclusion_reason(change: FileChange) -> str | None:
    """Why a file is never shown to the judge (lockfile, vendored, generated, binary), or None."""
    marks = change.attributes  # the base's .gitattributes: a change cannot mark its own files
    if marks.generated or marks.vendored:
        return "generated" if marks.generated else "vendored"
    path = change.path.lower()
    name = posixpath.basename(path)
    parts = path.split("/")[:-1]
    if name in LOCKFILES or name.endswith(".lock"):
        return "lockfile"
    head = _head_text(change)
    if change.binary or path.endswith(BINARY_SUFFIXES) or _looks_binary(head):
        return "binary"
    if any(part in VENDOR_DIRS for part in parts):
        return "vendored"
    if (parts[:1] and parts[0] in TOP_GENERATED_DIRS) or any(p in GENERATED_DIRS for p in parts):
        return "generated"
    if path.endswith(GENERATED_SUFFIXES) or _GENERATED_MARK.search(head[:600]):
        return "generated"
    return None


def relevance_key(change: FileChange, request_text: str) -> tuple[int, int, str]:
    """Sort key: files named in the request first, then source, tests, docs, config, deletions."""
    mentioned = 0 if _mentioned(change.path, request_text) else 1
    return (mentioned, _category(change), change.path)


def truncate_lines(text: str, max_tokens: int) -> tuple[str, bool]:
    """`text` cut at a line boundary to fit `max_tokens`, and whether it was cut."""
    if estimate_tokens(text) <= max_tokens:
        return text, False
    limit = max_tokens * BYTES_PER_TOKEN
    kept: list[str] = []
    used = 0
    for line in text.splitlines(keepends=True):
        size = len(line.encode("utf-8", "replace"))
        if used + size > limit:
            break
        kept.append(line)
        used += size
    return "".join(kept), True


def _head_text(change: FileChange) -> str:
    """The start of what the judge would be shown: the patch, else the head content."""
    if change.patch.strip():
        return change.patch[:_HEAD_CHARS]
    return (change.content or b"")[:_HEAD_CHARS].decode("utf-8", "replace")


def _looks_binary(head: str) -> bool:
    return "\x00" in head or "Binary files " in head[:400] or "GIT binary patch" in head[:400]


def _mentioned(path: str, request_text: str) -> bool:
    if not request_text:
        return False
    name = posixpath.basename(path)
    return path in request_text or (len(name) > 3 and name in request_text)


def _category(change: FileChange) -> int:
    path = change.path.lower()
    if change.status == "deleted":
        return 5
    if path.startswith(_CONFIG_PREFIXES) or ("/" not in path and path.startswith(".")):
        return 4
    if path.endswith(_DOC_SUFFIXES):
        return 3
    if _TEST_PATH.search(path):
        return 2
    return 1


def patch_lines(patch: str) -> list[int]:
    """For each line of a patch, the line of the head file it stands at."""
    numbers: list[int] = []
    head = 0
    for line in patch.split("\n"):
        hunk = _HUNK.match(line)
        if hunk:
            head = int(hunk.group(1))
            numbers.append(head)
            continue
        numbers.append(head)
        if line.startswith((" ", "+")) and not line.startswith("+++"):
            head += 1
    return numbers


def has_content(kept: str) -> bool:
    """True when the text shows more than blank lines and diff headers."""
    return any(line.strip() and not line.startswith(_DIFF_HEADERS) for line in kept.splitlines())


def file_text(change: FileChange) -> str | None:
    """The text the judge is shown of a changed file: its patch, else its content."""
    if change.patch.strip():
        return change.patch
    if change.content is not None:
        return change.content.decode("utf-8", "replace")
    if change.status == "deleted":
        return "(file deleted)"
    return None
