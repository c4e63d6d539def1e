"""Checks for commit SHAs, ref names and repository full names that came from outside (pure).

A SHA or branch name read from a webhook payload, the view state or the command line reaches
git's argv. A value such as `--upload-pack=touch x` would be read as an option, so every such
value is checked here first: a SHA is 40 or 64 lowercase hex digits, and a ref name follows
the rules of `git check-ref-format` that matter for safety.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

_SHA = re.compile(r"(?:[0-9a-f]{40}|[0-9a-f]{64})")
_REF_FORBIDDEN = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]")
_NAME_PART = re.compile(r"[A-Za-z0-9_.-]+")
REPO_PATTERN: Final = r"^(?!\.\.?/)[A-Za-z0-9_.-]+/(?!\.\.?$)[A-Za-z0-9_.-]+$"
"""`owner/name` for editors and other tools; `is_full_name` is the check that counts."""


def is_sha(value: object) -> bool:
    """A full commit SHA: 40 (SHA-1) or 64 (SHA-256) lowercase hex digits."""
    return isinstance(value, str) and _SHA.fullmatch(value) is not None


def ref_problem(value: object) -> str | None:
    """Why `value` cannot be a git branch or ref name (`git check-ref-format`), or None."""
    if not isinstance(value, str) or not value:
        return "it is empty"
    if value.startswith("-"):
        return "it starts with '-'"
    if _REF_FORBIDDEN.search(value):
        return "it holds a space, a control character or one of ~^:?*[\\"
    if ".." in value or "@{" in value or value == "@":
        return "it holds '..' or '@{', or is '@'"
    parts = value.split("/")
    if any(not part or part.startswith(".") or part.endswith(".lock") for part in parts):
        return "a component is empty, starts with '.' or ends with '.lock'"
    if value.endswith("."):
        return "it ends with '.'"
    return None


def sha_error(value: object, what: str) -> str | None:
    """A clear message when `value` is not a full SHA, else None."""
    if is_sha(value):
        return None
    return f"{what} is not a full commit SHA (40 or 64 lowercase hex digits): {_show(value)}"


def ref_error(value: object, what: str) -> str | None:
    """A clear message when `value` is not a safe ref name, else None."""
    problem = ref_problem(value)
    return (
        None if problem is None else f"{what} is not a valid ref name ({problem}): {_show(value)}"
    )


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


@lru_cache(maxsize=1024)
def is_full_name(repo: str) -> bool:
    """True for `owner/name`: letters, digits, `_`, `.` and `-` in each part, never `.` or `..`."""
    parts = repo.split("/")
    return len(parts) == 2 and all(
        _NAME_PART.fullmatch(part) and part not in (".", "..") for part in parts
    )
