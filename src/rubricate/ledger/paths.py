"""Where the data branch keeps its files: derived files, job files, badges; and the git id of
a file's content (pure: names and hashes only)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

LAYOUT_VERSION = 2
"""The data branch's layout (see docs/data-branch.md); `ledger verify --fix` moves an older one."""
REPUTATION_PATH = "reputation.json"
CACHE_PATH = ".rubricate/fold-cache.json"
BUCKET_DIR = ".rubricate/facts/"
ID_DIR = ".rubricate/ids/"
TOTALS_DIR = ".rubricate/totals/"
JOBS_PER_FOLDER = 1000
JOBS_DIR = "jobs/"
DERIVED_DIRS = (JOBS_DIR, "badges/", ".rubricate/")
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
        return _safe_repo(repo) + "/"

    def job_path(self, repo: str, pr: int) -> str:
        """`jobs/<pr>.json` below #1000, then a folder per thousand: `jobs/12k/12345.json`."""
        return f"jobs/{self._prefix(repo)}{job_folder(pr)}{pr}.json"

    def totals_path(self, repo: str) -> str:
        """`.rubricate/totals/<owner>/<name>.json`: the running totals of a repository's authors."""
        return f"{TOTALS_DIR}{_safe_repo(repo)}.json"

    def author_badge(self, repo: str, login: str, ext: str) -> str:
        """`badges/<author>.<ext>`."""
        return f"badges/{self._prefix(repo)}{author_stem(login)}.{ext}"

    def repo_badge(self, repo: str, ext: str) -> str:
        """`badges/repo.<ext>`."""
        return f"badges/{self._prefix(repo)}{REPO_STEM}.{ext}"


def job_folder(pr: int) -> str:
    """The folder of a job's file under `jobs/`: none below #1000, else `<thousands>k/`."""
    return f"{pr // JOBS_PER_FOLDER}k/" if pr >= JOBS_PER_FOLDER else ""


def _safe_repo(repo: str) -> str:
    return "/".join(_UNSAFE.sub("_", part) or "_" for part in repo.split("/"))


def job_paths(repo: str, pr: int) -> tuple[str, ...]:
    """Where a job's file is when the ledger holds one repository, and when it holds several;
    then where layout 1 kept it (a branch not yet moved by `ledger verify --fix`)."""
    single, several = Layout((repo,)), Layout((repo, ""))
    found = (single.job_path(repo, pr), several.job_path(repo, pr))
    if not job_folder(pr):
        return found
    return (*found, f"jobs/{pr}.json", f"jobs/{_safe_repo(repo)}/{pr}.json")


def git_blob_id(data: bytes) -> str:
    """The sha1 id git gives a blob with this content."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()
