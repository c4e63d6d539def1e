"""Read refs, commit logs and single files of a local git repository (shell: runs git).

Also "the config at a ref", read once here for the action, `rubricate score` and `catch-up`,
and the files of one commit read on demand (`BaseTree`).
"""

from __future__ import annotations

import io
import tarfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from rubricate.config import Config, load_config
from rubricate.errors import ConfigError, RubricateError
from rubricate.evidence.snapshot import MAX_PARSE_BYTES
from rubricate.gitio.kept import kept
from rubricate.gitio.run import git_text, run_git
from rubricate.gitnames import is_sha

DEFAULT_BRANCHES = ("origin/HEAD", "main", "master")


def check_repository(repo_dir: str | Path) -> Path:
    """The repository directory; a clear error when it is missing or not a git work tree."""
    path = Path(repo_dir)
    if not path.exists():
        raise RubricateError(f"no such directory: {repo_dir}")
    if not path.is_dir():
        raise RubricateError(f"not a directory: {repo_dir}")
    if kept(path) is None and run_git(["rev-parse", "--git-dir"], path, check=False).returncode:
        raise RubricateError(f"not a git repository: {repo_dir}")
    return path


def resolve_commit(repo_dir: str | Path, ref: str) -> str:
    """The full commit SHA a ref names; a clear error when it names no commit."""
    if is_sha(ref) and (objects := kept(repo_dir)) is not None:
        found = objects.info(f"{ref}^{{commit}}")
        if found is not None and found[1] == "commit":
            return found[0]
    proc = run_git(
        ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"],
        repo_dir,
        check=False,
    )
    if proc.returncode != 0:
        raise RubricateError(
            f"unknown ref {ref!r} in {repo_dir}: it names no commit{_hint(repo_dir)}"
        )
    return proc.stdout.decode().strip()


def tree_ids(repo_dir: str | Path, *commits: str) -> list[str]:
    """The tree of each commit (full SHAs)."""
    objects = kept(repo_dir)
    if objects is not None:
        found = [objects.info(f"{commit}^{{tree}}") for commit in commits]
        if all(f is not None and f[1] == "tree" for f in found):
            return [f[0] for f in found if f is not None]
    return git_text(["rev-parse", *(f"{commit}^{{tree}}" for commit in commits)], repo_dir).split()


def _hint(repo_dir: str | Path) -> str:
    """Why a ref may be missing: a repository without commits, or a shallow clone."""
    commits = run_git(["rev-list", "-n", "1", "--all"], repo_dir, check=False)
    if commits.returncode == 0 and not commits.stdout.strip():
        return " (the repository has no commits yet)"
    shallow = run_git(["rev-parse", "--is-shallow-repository"], repo_dir, check=False)
    if shallow.stdout.strip() == b"true":
        return " (this is a shallow clone: fetch more history with `git fetch --unshallow`)"
    return ""


def default_base(repo_dir: str | Path, head: str) -> str:
    """The merge-base of `head` with the default branch (origin/HEAD, else main, else master)."""
    for branch in DEFAULT_BRANCHES:
        found = run_git(
            ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{branch}^{{commit}}"],
            repo_dir,
            check=False,
        )
        if found.returncode != 0:
            continue
        base = run_git(["merge-base", "--end-of-options", branch, head], repo_dir, check=False)
        if base.returncode != 0:
            raise RubricateError(
                f"{branch} and {head} share no history{_hint(repo_dir)}; pass --base REF"
            )
        return base.stdout.decode().strip()
    raise RubricateError(
        "no default branch (origin/HEAD, main or master) to compare with; pass --base REF"
    )


def merge_base(repo_dir: str | Path, ref: str, head: str) -> str:
    """The merge-base of `ref` and `head` (three-dot, as a pull request shows its change)."""
    base = resolve_commit(repo_dir, ref)
    found = run_git(["merge-base", "--end-of-options", base, head], repo_dir, check=False)
    if found.returncode != 0:
        raise RubricateError(f"{ref} and {head[:12]} share no history{_hint(repo_dir)}")
    return found.stdout.decode().strip()


def read_commit_log(repo_dir: str | Path, base: str, head: str) -> tuple[str, str]:
    """A PR title and body from the commits in base..head: first subject, then all messages."""
    out = run_git(
        ["log", "--reverse", "-z", "--format=%B", "--end-of-options", f"{base}..{head}", "--"],
        repo_dir,
    )
    messages = [m.strip() for m in out.stdout.decode("utf-8", "replace").split("\0") if m.strip()]
    if not messages:
        return "", ""
    title, _, rest = messages[0].partition("\n")
    body = rest.strip() if len(messages) == 1 else "\n\n".join(messages)
    return title.strip(), body


def first_parents(
    repo_dir: str | Path, base: str, head: str
) -> list[tuple[str, tuple[str, ...], str, str]]:
    """The commits from base to head along the first parent, oldest first: (sha, parents,
    tree, subject)."""
    out = run_git(
        [
            "log",
            "--first-parent",
            "--reverse",
            "-z",
            "--format=%H %P%n%T%n%s",
            "--end-of-options",
            f"{base}..{head}",
            "--",
        ],
        repo_dir,
    )
    commits = []
    for record in out.stdout.decode("utf-8", "replace").split("\0"):
        shas, _, rest = record.strip("\n").partition("\n")
        tree, _, subject = rest.partition("\n")
        if shas:
            sha, *parents = shas.split()
            commits.append((sha, tuple(parents), tree, subject))
    return commits


def merged_tree(repo_dir: str | Path, left: str, right: str) -> str | None:
    """The tree git's three-way merge of two commits gives (written to the repository); None
    when it conflicts, or when the commits have no common history."""
    proc = run_git(
        ["merge-tree", "--write-tree", "--no-messages", "--end-of-options", left, right],
        repo_dir,
        check=False,
    )
    lines = proc.stdout.decode("utf-8", "replace").splitlines()
    return lines[0] if proc.returncode == 0 and lines else None


def read_file_at(repo_dir: str | Path, ref: str, path: str) -> bytes:
    """The content of `path` at `ref`; FileNotFoundError when the path is absent there.

    What a commit holds never changes: the last `KEPT_FILES` small files (and absences) read
    at a commit of a repository are kept, so a process reading the same config at the same
    base again (a worker's next job) runs no git."""
    clean = path.strip().removeprefix("./").lstrip("/")
    if not clean or "\n" in clean or ".." in clean.split("/"):
        raise FileNotFoundError(f"{path} is not a file in the repository")
    where = str(Path(repo_dir).resolve())
    found = _kept.get((where, ref, clean), _UNKNOWN) if is_sha(ref) else _UNKNOWN
    if found is _UNKNOWN:
        commit = resolve_commit(repo_dir, ref)
        spec = f"{commit}:{clean}"
        sha, kind, size = batch_check(repo_dir, [spec]).get(spec, ("", "missing", 0))
        found = batch_read(repo_dir, [sha])[sha] if kind == "blob" else None
        if size <= KEPT_BYTES:
            _keep((where, commit, clean), found)
    if not isinstance(found, bytes):
        raise FileNotFoundError(f"{path} is not a file at {ref}")
    return found


KEPT_FILES = 256
KEPT_BYTES = 64 * 1024
_UNKNOWN = object()
_kept: dict[tuple[str, str, str], bytes | None] = {}
"""(repository, commit, path) -> the file's bytes, None when it is no file there."""
_kept_lock = threading.Lock()


def _keep(key: tuple[str, str, str], data: bytes | None) -> None:
    with _kept_lock:
        _kept[key] = data
        while len(_kept) > KEPT_FILES:
            del _kept[next(iter(_kept))]


def batch_check(repo: str | Path, specs: Sequence[str]) -> dict[str, tuple[str, str, int]]:
    """`spec -> (sha, type, size)` for each object that exists."""
    if not specs:
        return {}
    if (objects := kept(repo)) is not None:
        return {spec: seen for spec in specs if (seen := objects.info(spec)) is not None}
    stdin = "".join(f"{s}\n" for s in specs).encode("utf-8")
    out = run_git(["cat-file", "--batch-check"], repo, input_bytes=stdin).stdout.decode(
        "utf-8", "replace"
    )
    found: dict[str, tuple[str, str, int]] = {}
    for spec, line in zip(specs, out.splitlines(), strict=False):
        parts = line.rsplit(" ", 2)
        if len(parts) == 3 and parts[2].isdigit():
            found[spec] = (parts[0], parts[1], int(parts[2]))
    return found


def batch_read(repo: str | Path, shas: Sequence[str]) -> dict[str, bytes]:
    """The content of each blob SHA, read in one `cat-file --batch` run."""
    if not shas:
        return {}
    if (objects := kept(repo)) is not None:
        return {sha: blob[2] for sha in shas if (blob := objects.read(sha)) is not None}
    stdin = "".join(f"{s}\n" for s in shas).encode("ascii")
    out = run_git(["cat-file", "--batch"], repo, input_bytes=stdin).stdout
    found: dict[str, bytes] = {}
    pos = 0
    for sha in shas:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if len(header) == 3:
            size = int(header[2])
            found[sha] = out[pos : pos + size]
            pos += size + 1
    return found


def export_tree(repo_dir: str | Path, ref: str, dest: str | Path) -> None:
    """Write the files of `ref` into `dest` (for graders), without touching the repository."""
    tar = run_git(
        ["archive", "--format=tar", "--end-of-options", resolve_commit(repo_dir, ref)], repo_dir
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        if hasattr(tarfile, "data_filter"):
            archive.extractall(dest, filter="data")
        else:  # pragma: no cover - Python without tar extraction filters
            archive.extractall(dest)


def read_text_at(repo_dir: str | Path, ref: str, path: str, where: str) -> str | None:
    """A UTF-8 text file at `ref`; None when it is absent (`where` names the ref in errors)."""
    try:
        data = read_file_at(repo_dir, ref, path)
    except FileNotFoundError:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path} {where} is not UTF-8 text") from None


def config_at(repo_dir: str | Path, ref: str, path: str, where: str) -> Config | None:
    """The config file at `ref`, validated; None when it is absent there."""
    text = read_text_at(repo_dir, ref, path, where)
    return None if text is None else load_config(text, path)


class BaseTree(Mapping[str, bytes]):
    """The files of one commit, read on demand and kept: schema files and what they `$ref`.

    One `ls-tree` lists the blobs (so an absent path costs nothing); a file is read together
    with its siblings of the same extension, in one `cat-file` run, and kept. Iteration covers
    only the files read so far. Files over `max_bytes` read as absent.
    """

    def __init__(
        self,
        repo_dir: str | Path,
        commit: str,
        preloaded: Mapping[str, bytes] | None = None,
        *,
        max_bytes: int = 8 * MAX_PARSE_BYTES,
    ) -> None:
        self._repo = Path(repo_dir)
        self._commit = commit
        self._files: dict[str, bytes] = dict(preloaded or {})
        self._blobs: dict[str, tuple[str, int]] | None = None
        self._max_bytes = max_bytes

    def __getitem__(self, path: str) -> bytes:
        if path in self._files:
            return self._files[path]
        sha, size = self._listing().get(path, ("", -1))
        if not sha or size > self._max_bytes:
            raise KeyError(path)
        self._read_folder(path)
        return self._files[path]

    def _read_folder(self, path: str) -> None:
        """Read the wanted file and its siblings of the same kind in one `cat-file` run."""
        folder, _, name = path.rpartition("/")
        suffix = name.rpartition(".")[2]
        wanted = {
            other: sha
            for other, (sha, size) in self._listing().items()
            if other.rpartition("/")[0] == folder
            and other.endswith("." + suffix)
            and size <= self._max_bytes
            and other not in self._files
        }
        wanted[path] = self._listing()[path][0]
        blobs = batch_read(self._repo, sorted(set(wanted.values())))
        self._files.update({other: blobs[sha] for other, sha in wanted.items() if sha in blobs})

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._files))

    def __len__(self) -> int:
        return len(self._files)

    def _listing(self) -> dict[str, tuple[str, int]]:
        if self._blobs is None:
            args = ["ls-tree", "-r", "-z", "--full-tree", "--long", "--end-of-options"]
            out = run_git([*args, self._commit], self._repo).stdout
            self._blobs = {}
            for line in out.split(b"\0"):
                meta, _, name = line.partition(b"\t")
                parts = meta.split()
                if len(parts) == 4 and parts[1] == b"blob" and parts[3].isdigit():
                    path = name.decode("utf-8", "replace")
                    self._blobs[path] = (parts[2].decode(), int(parts[3]))
        return self._blobs
