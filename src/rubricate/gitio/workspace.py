"""Private bare repositories fed from a remote: a PR's commits, and the data branch (shell: git).

A PR's base and head commits are fetched into one to be read, never checked out or executed.
The data branch's repository holds a shallow, blob-less copy of the branch tip (commit and
trees); the blobs it reads are fetched in one request (servers without filter support send all).
Commits are built with `git fast-import` from the tip, writing only the files that changed, in
one process. The remote URL is passed on each command line and a token only through the
environment (`GIT_CONFIG_COUNT`/`KEY`/`VALUE` setting `http.extraheader`), so no credential
lands in `.git/config`; a URL that carries one disables the blob-less fetch, which records it.
"""

from __future__ import annotations

import base64
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

from rubricate.errors import RubricateError, gist
from rubricate.gitio.fastimport import CommitStream, data_command
from rubricate.gitio.objects import ObjectReader, TreeEntries
from rubricate.gitio.run import GitError, git_text, run_git
from rubricate.gitnames import ref_error, sha_error
from rubricate.redaction import redact_url

BOT_NAME = "rubricate-bot"
BOT_EMAIL = "rubricate-bot@users.noreply.github.com"
TIP_REF = "refs/rubricate/tip"
NEW_REF = "refs/rubricate/new"
MOVED_REF = "refs/rubricate/moved"
_CONTENDED = (
    "[rejected]",
    "non-fast-forward",
    "fetch first",
    "stale info",
    "failed to lock",
    "cannot lock ref",
    "failed to update ref",
    "incorrect old value",
)
"""What git's own status line for a refused ref says when another push held or moved it (a
remote's hook cannot write that line: its words come as `remote:` lines)."""
_T = TypeVar("_T")
PUSH_TIMEOUT = 600.0
"""Seconds a push may take before it is given up (the remote may still take it)."""
_MISSING = ("couldn't find remote ref", "could not find remote ref")
_NO_FILTER = "filtering not recognized by server"
# A local remote serves a blob-less fetch only when its upload-pack allows filters; it packs
# without a delta search (on a local pipe size hardly matters, and the search took 8.5 of the
# 9 s it took to fetch a 100,000-event ledger's shards).
LOCAL_UPLOAD_PACK = (
    "git -c uploadpack.allowFilter=true -c uploadpack.allowAnySHA1InWant=true -c pack.window=0 "
    "upload-pack"
)
DEEPEN_STEPS = (1, 16, 256)
SCRATCH_CONFIG = "[maintenance]\n\tauto = false\n[fastimport]\n\tunpackLimit = 0\n"
"""Settings of a data branch's private repository, which holds one tip and a few commits made
on it: no housekeeping process after each fetch, and fast-import's pack kept as it is written
(not unpacked into loose objects by another process)."""


def is_url(remote: str) -> bool:
    """True for a URL (`scheme://...` or scp-like `user@host:path`), False for a local path."""
    return "://" in remote or re.match(r"^[\w.-]+@[\w.-]+:", remote) is not None


def remote_url(remote: str) -> str:
    """A URL git can fetch shallowly: local paths become absolute `file://` URLs."""
    if is_url(remote):
        return remote
    return Path(remote).expanduser().resolve().as_uri()


def auth_env(url: str, token: str | None, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """Environment entries adding an authorization header for this URL's host only.

    `base` is the environment they go on top of (the process's by default).
    """
    if not token or not url.startswith(("http://", "https://")):
        return {}
    base = os.environ if base is None else base
    parts = urlsplit(url)
    scope = f"{parts.scheme}://{parts.hostname}{':' + str(parts.port) if parts.port else ''}/"
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    count = int(base.get("GIT_CONFIG_COUNT", "0") or 0)
    return {
        "GIT_CONFIG_COUNT": str(count + 1),
        f"GIT_CONFIG_KEY_{count}": f"http.{scope}.extraheader",
        f"GIT_CONFIG_VALUE_{count}": f"AUTHORIZATION: basic {basic}",
    }


def fetch_commits(
    remote: str, base_sha: str, head_sha: str, dest: Path, *, token: str | None
) -> str:
    """Fetch both commits into a bare repo at `dest`; return their merge base (else the base).
    A repository already at `dest` that holds both commits and a merge base fetches nothing."""
    _check(sha_error(base_sha, "base SHA"), sha_error(head_sha, "head SHA"))
    env = auth_env(remote, token)
    remote = remote_url(remote)
    if not (dest / "HEAD").exists():
        run_git(["init", "--bare", "--quiet", str(dest)], env=env)
    elif found := _merge_base(dest, base_sha, head_sha):  # a kept repository has both
        return found
    for depth in DEEPEN_STEPS:
        _fetch(dest, remote, [base_sha, head_sha], env, ["--depth", str(depth)])
        found = _merge_base(dest, base_sha, head_sha)
        if found:
            return found
    _fetch(dest, remote, [base_sha, head_sha], env, ["--unshallow"])
    return _merge_base(dest, base_sha, head_sha) or base_sha


def fetch_branch(remote: str, branch: str, dest: Path, *, token: str | None) -> str:
    """Fetch the tip of `branch` (depth 1) into the bare repo at `dest`; return its commit."""
    _check(ref_error(branch, "branch"))
    env = auth_env(remote, token)
    remote = remote_url(remote)
    if not (dest / "HEAD").exists():
        run_git(["init", "--bare", "--quiet", str(dest)], env=env)
    ref = f"refs/rubricate/branches/{branch}"
    _fetch(dest, remote, [f"+refs/heads/{branch}:{ref}"], env, ["--depth", "1"])
    return git_text(["rev-parse", "--verify", "--end-of-options", f"{ref}^{{commit}}"], dest)


def remote_refs(remote: str, patterns: Iterable[str], *, token: str | None) -> dict[str, str]:
    """`ref name -> sha` of the remote's refs matching `patterns` (`git ls-remote`)."""
    wanted = list(patterns)
    _check(*(ref_error(p.replace("*", "x"), "ref pattern") for p in wanted))
    env = auth_env(remote, token)
    out = run_git(["ls-remote", "--end-of-options", remote_url(remote), *wanted], env=env)
    return _listed_refs(out.stdout)


def _listed_refs(out: bytes) -> dict[str, str]:
    """`ref name -> sha` of `git ls-remote` output."""
    found = {}
    for line in out.decode("utf-8", "replace").splitlines():
        sha, _, name = line.partition("\t")
        if name and not sha_error(sha, "sha"):
            found[name] = sha
    return found


def _merge_base(repo: Path, left: str, right: str) -> str | None:
    """The best common ancestor of two commits present in `repo`, or None."""
    proc = run_git(["merge-base", "--end-of-options", left, right], repo, check=False)
    return (proc.stdout.decode().strip() or None) if proc.returncode == 0 else None


def tree_of(repo: Path, commit: str) -> str:
    """The tree SHA of a commit present in `repo`."""
    _check(sha_error(commit, "commit"))
    return git_text(["rev-parse", "--verify", "--end-of-options", f"{commit}^{{tree}}"], repo)


def _fetch(repo: Path, remote: str, shas: list[str], env: dict[str, str], extra: list[str]) -> None:
    args = ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", *extra]
    try:
        run_git([*args, "--end-of-options", remote, *shas], repo, env=env)
    except GitError as exc:
        if "--unshallow" in extra and "unshallow on a complete repository" in exc.stderr:
            return
        raise


def _check(*problems: str | None) -> None:
    """Refuse a SHA or ref that git could read as an option, before it reaches argv."""
    for problem in problems:
        if problem:
            raise RubricateError(problem)


class GitWorkspace:
    """A private bare repository that talks to one remote branch."""

    def __init__(self, gitdir: Path, remote: str, branch: str, token: str | None) -> None:
        self.gitdir = gitdir
        self.url = remote_url(remote)
        self.branch = branch
        self.token = token
        self.env = auth_env(self.url, token)
        self.partial = _no_secret_in(self.url)
        self._present: set[str] = set()
        self._reader: ObjectReader | None = None
        if not (gitdir / "HEAD").exists():
            gitdir.mkdir(parents=True, exist_ok=True)
            self._git("init", "--bare", "--quiet", "--template=")  # no sample hooks to copy
            with (gitdir / "config").open("a", encoding="utf-8") as config:
                config.write(SCRATCH_CONFIG)

    def fetch_tip(self) -> str | None:
        """Fetch the branch tip (depth 1); None when the branch does not exist."""
        refspec = f"+refs/heads/{self.branch}:{TIP_REF}"
        args = ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--depth", "1"]
        args += self._fetch_options()
        proc = run_git(
            [*args, "--end-of-options", self.url, refspec], self.gitdir, env=self.env, check=False
        )
        stderr = proc.stderr.decode("utf-8", "replace")
        if proc.returncode != 0:
            if any(m in stderr for m in _MISSING):
                self._git("update-ref", "-d", TIP_REF, check=False)
                return None
            raise GitError(["fetch", self.safe_url], proc.returncode, self._redact(stderr))
        if _NO_FILTER in stderr:
            self.partial = False
        self.close()  # a reader started before the fetch may not see its refs
        found = self._objects().read(TIP_REF)
        if found is None:
            raise GitError(["rev-parse", TIP_REF], 1, "the fetched tip is missing")
        return found[0]

    def tree(self, commit: str | None) -> dict[str, tuple[str, str]]:
        """Every file of a commit: path → (mode, blob id)."""
        if commit is None:
            return {}
        out = self._git("ls-tree", "-r", "-z", "--full-tree", commit)
        files = {}
        for entry in out.split(b"\0"):
            if entry:
                meta, _, path = entry.partition(b"\t")
                mode, _, oid = meta.decode().split()
                files[path.decode("utf-8", "surrogateescape")] = (mode, oid)
        return files

    def entries(self, tree: str) -> TreeEntries:
        """The entries of one tree (a tree id, or `<commit>^{tree}`): name → (mode, id)."""
        return self._objects().tree(tree)

    def read_blobs(self, ids: Iterable[str]) -> dict[str, bytes]:
        """The content of each blob id (the missing ones fetched first, in one request)."""
        wanted = self.fetch_blobs(ids)
        blobs: dict[str, bytes] = {}
        for blob_id in wanted:
            found = self._objects().read(blob_id)
            if found is None:
                raise GitError(["cat-file", "--batch"], 1, f"{blob_id} missing")
            blobs[blob_id] = found[2]
        return blobs

    def fetch_blobs(self, ids: Iterable[str]) -> list[str]:
        """Fetch the blobs of these ids that are not here yet, in one request; the ids, once."""
        wanted = list(dict.fromkeys(ids))
        missing = [i for i in wanted if i not in self._present] if self.partial else []
        if missing:
            self._prefetch(missing)
        self._present.update(wanted)
        return wanted

    def commit(
        self,
        parent: str | None,
        files: Mapping[str, bytes],
        deletions: Iterable[str],
        message: str,
    ) -> str:
        """A commit on top of `parent` changing only these paths; returns its id."""
        with self.stream(parent, message) as stream:
            for path in sorted(deletions):
                stream.delete(path)
            for path in sorted(files):
                stream.put(path, files[path])
            return stream.finish()

    def stream(self, parent: str | None, message: str) -> CommitStream:
        """A commit on top of `parent` whose changes are sent to `git fast-import` one at a time
        (see `rubricate.gitio.fastimport`); nothing is committed before its `finish`."""
        stamp = f"{BOT_NAME} <{BOT_EMAIL}> {int(time.time())} +0000"
        header = f"author {stamp}\ncommitter {stamp}\n".encode() + data_command(message.encode())
        return CommitStream(self.gitdir, self.env, NEW_REF, parent, header)

    def push(self, commit: str, base: str | None) -> bool:
        """Push `commit` (made on `base`, None for a new branch) without force: True when the
        branch is at it afterwards, False when the branch moved from `base` or another push held
        its ref (plan again on the new tip). Git's exit code alone does not decide: after a
        failure the branch is read again, so a push that landed before the connection dropped
        is written, and one the remote refused (a hook, a full disk) is a `GitError` with the
        remote's words at once, not a race retried until it gives up. A push that failed in
        another way (the connection dropped) while the branch moved on is written when the new
        tip holds `commit` (someone pushed on top of it at once). When the branch cannot be
        read after a failed push, or a push times out and is not there, the `GitError` says the
        push may have landed."""
        target = f"{commit}:refs/heads/{self.branch}"
        args = ["push", "--porcelain", "--end-of-options", self.url, target]
        try:
            proc = run_git(args, self.gitdir, env=self.env, check=False, timeout=PUSH_TIMEOUT)
        except GitError as exc:  # timed out: the remote may take the push all the same
            now = self._reread(exc.stderr, exc.returncode, self.remote_tip)
            if self._reread(exc.stderr, exc.returncode, lambda: self._holds(now, commit)):
                return True
            raise self._may_have_landed(exc.stderr, exc.returncode) from None
        if proc.returncode == 0:
            return True
        status, said = push_refusal((proc.stdout + proc.stderr).decode("utf-8", "replace"))
        now = self._reread(said, proc.returncode, self.remote_tip)
        if now == commit:
            return True
        if any(marker in status for marker in _CONTENDED):
            return False
        if now != base:  # moved: written when someone pushed on top of it at once
            return self._reread(said, proc.returncode, lambda: self._holds(now, commit))
        raise GitError(["push", self.safe_url], proc.returncode, self._redact(said))

    def _reread(self, said: str, returncode: int, read: Callable[[], _T]) -> _T:
        """`read()` of the branch after a push that git says failed (`said`): a failure to read
        is the push's error, which may have landed."""
        try:
            return read()
        except GitError as exc:
            raise self._may_have_landed(f"{said.strip()}; then {exc.stderr}", returncode) from None

    def _holds(self, tip: str | None, commit: str) -> bool:
        """Whether the branch's `tip` is `commit` or was built on it (fetched to know)."""
        if tip is None or tip == commit:
            return tip is not None
        refspec = f"+refs/heads/{self.branch}:{MOVED_REF}"
        args = ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", *self._fetch_options()]
        self._git(*args, "--end-of-options", self.url, refspec)
        ancestry = ["merge-base", "--is-ancestor", "--end-of-options", commit, MOVED_REF]
        return run_git(ancestry, self.gitdir, check=False).returncode == 0

    def _may_have_landed(self, said: str, returncode: int) -> GitError:
        """The error of a push that failed (`said`) but may be on the branch all the same."""
        return GitError(
            ["push", self.safe_url],
            returncode,
            self._redact(
                f"error: {said.strip()}; the push may have landed: run it again (what "
                "was written is skipped)"
            ),
        )

    def remote_tip(self) -> str | None:
        """The branch's commit on the remote now (None when it has none)."""
        ref = f"refs/heads/{self.branch}"
        return _listed_refs(self._git("ls-remote", "--end-of-options", self.url, ref)).get(ref)

    def close(self) -> None:
        """End the object reader, if one runs."""
        if self._reader is not None:
            self._reader.close()
        self._reader = None

    def _objects(self) -> ObjectReader:
        if self._reader is None:
            self._reader = ObjectReader(self.gitdir, self.env)
        return self._reader

    def _prefetch(self, ids: list[str]) -> None:
        """Fetch these blobs in one request (the tip was fetched without blobs)."""
        args = ["-c", "fetch.negotiationAlgorithm=noop", "fetch", "--quiet", "--no-tags"]
        args += ["--no-write-fetch-head", "--recurse-submodules=no", *self._fetch_options()]
        self._git(*args, self.url, "--stdin", input_bytes=("\n".join(ids) + "\n").encode())

    def _fetch_options(self) -> list[str]:
        options = ["--filter=blob:none"] if self.partial else []
        if self.partial and self.url.startswith("file://"):
            options.append(f"--upload-pack={LOCAL_UPLOAD_PACK}")
        return options

    @property
    def safe_url(self) -> str:
        """The remote URL with any credentials replaced by `***`."""
        return self._redact(self.url)

    def _redact(self, text: str) -> str:
        return redact_url(text, self.url, self.token)

    def _git(self, *args: str, input_bytes: bytes | None = None, check: bool = True) -> bytes:
        try:
            proc = run_git(args, self.gitdir, env=self.env, input_bytes=input_bytes, check=check)
        except GitError as exc:
            redacted = [self._redact(a) for a in args]
            raise GitError(redacted, exc.returncode, self._redact(exc.stderr)) from None
        return proc.stdout


def push_refusal(output: str) -> tuple[str, str]:
    """Git's status of a refused ref in `git push --porcelain` output (its `!` line), and what
    to say: that status with the remote's own lines (`remote: …`, a hook's words)."""
    lines = [line.strip() for line in output.splitlines()]
    status = " ".join(line.split("\t")[-1] for line in lines if line.startswith("!"))
    remote = [line.removeprefix("remote:").strip() for line in lines if line.startswith("remote:")]
    said = "; ".join(part for part in [status, *remote] if part)
    return status, "error: the remote refused the push: " + (said or gist(output))


def _no_secret_in(url: str) -> bool:
    """True when the URL may be recorded (a blob-less fetch writes it to the repository config)."""
    parts = urlsplit(url)
    return parts.password is None and (parts.username is None or parts.scheme == "ssh")
