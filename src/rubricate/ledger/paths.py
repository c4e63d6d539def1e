"""Where the data branch keeps its files: derived files, job files, badges; and the git id of
a file's content (pure: names and hashes only)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

REPUTATION_PATH = "reputation.json"
CACHE_PATH = ".rubricate/fold-cache.json"
BUCKET_DIR = ".rubricate/facts/"
ID_DIR = ".rubricate/ids/"
DERIVED_DIRS = ("jobs/", "badges/", ".rubricate/")
REPO_STEM = "repo"
_BADGE_UNSAFE = re.compile(r"[^A-Za-z0-9-]")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def is_derived(path: str) -> bool:
    """True for paths that the derived files own (stale ones are deleted on a full recompute)."""
    return path == REPUTATION_PATH or path.startswith(DERIVED_DIRS)


def author_stem(login: str) -> str:
    """A file-name stem for a login; never `repo`, which names the repository badge."""
    stem = _BADGE_UNSAFE.sub("_", login) or "_"
    return stem + "_" if stem.lower() == REPO_STEM else stem


@dataclass(frozen=True)
class Layout:
    """Where each derived file goes, given the repositories in the ledger."""

    repos: tuple[str, ...]

    def _prefix(self, repo: str) -> str:
        if len(self.repos) <= 1:
            return ""
        return "/".join(_UNSAFE.sub("_", part) or "_" for part in repo.split("/")) + "/"

    def job_path(self, repo: str, pr: int) -> str:
        """`jobs/<pr>.json`."""
        return f"jobs/{self._prefix(repo)}{pr}.json"

    def author_badge(self, repo: str, login: str, ext: str) -> str:
        """`badges/<author>.<ext>`."""
        return f"badges/{self._prefix(repo)}{author_stem(login)}.{ext}"

    def repo_badge(self, repo: str, ext: str) -> str:
        """`badges/repo.<ext>`."""
        return f"badges/{self._prefix(repo)}{REPO_STEM}.{ext}"


def job_paths(repo: str, pr: int) -> tuple[str, str]:
    """Where a job's file is when the ledger holds one repository, and when it holds several."""
    return Layout((repo,)).job_path(repo, pr), Layout((repo, "")).job_path(repo, pr)


def git_blob_id(data: bytes) -> str:
    """The sha1 id git gives a blob with this content."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()
