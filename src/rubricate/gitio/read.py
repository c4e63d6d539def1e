"""Read a change from a local git repository into a `Snapshot` (shell: runs git).

The number of git calls does not grow with the number of files: one `rev-parse`, one
`git diff` (raw + numstat + patch in a single run), one `ls-tree`, one `cat-file --batch-check`
and one `cat-file --batch`. Files over 1 MiB are size-checked and never read; git itself
treats them as binary (`core.bigFileThreshold`), so their patch is not produced either.
"""

from __future__ import annotations

import io
import tarfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from rubricate.errors import RubricateError
from rubricate.evidence.snapshot import MAX_PARSE_BYTES, ChangeStatus, FileChange, Snapshot
from rubricate.gitio.run import git_text, run_git

STATUS: dict[str, ChangeStatus] = {
    "A": "added",
    "M": "modified",
    "D": "deleted",
    "R": "renamed",
    "C": "copied",
    "T": "typechange",
}
SYMLINK_MODE = "120000"
SUBMODULE_MODE = "160000"
NULL_SHA = "0" * 40
DEFAULT_BRANCHES = ("origin/HEAD", "main", "master")
DIFF_OPTIONS = (
    "--raw --numstat --patch -z --find-renames --no-abbrev --no-color --no-ext-diff"
    " --no-textconv --no-relative --src-prefix=a/ --dst-prefix=b/"
)
"""Raw, numstat and patch in one run; user config that changes the output is overridden."""


@dataclass(frozen=True)
class _Entry:
    path: str
    status: ChangeStatus
    old_path: str | None
    mode: str
    sha: str
    additions: int = 0
    deletions: int = 0
    binary: bool = False


def check_repository(repo_dir: str | Path) -> Path:
    """The repository directory; a clear error when it is missing or not a git work tree."""
    path = Path(repo_dir)
    if not path.exists():
        raise RubricateError(f"no such directory: {repo_dir}")
    if not path.is_dir():
        raise RubricateError(f"not a directory: {repo_dir}")
    if run_git(["rev-parse", "--git-dir"], path, check=False).returncode != 0:
        raise RubricateError(f"not a git repository: {repo_dir}")
    return path


def resolve_commit(repo_dir: str | Path, ref: str) -> str:
    """The full commit SHA a ref names; a clear error when it names no commit."""
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
            ["rev-parse", "--verify", "--quiet", f"{branch}^{{commit}}"], repo_dir, check=False
        )
        if found.returncode != 0:
            continue
        base = run_git(["merge-base", branch, head], repo_dir, check=False)
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
    found = run_git(["merge-base", base, head], repo_dir, check=False)
    if found.returncode != 0:
        raise RubricateError(f"{ref} and {head[:12]} share no history{_hint(repo_dir)}")
    return found.stdout.decode().strip()


def read_commit_log(repo_dir: str | Path, base: str, head: str) -> tuple[str, str]:
    """A PR title and body from the commits in base..head: first subject, then all messages."""
    out = run_git(["log", "--reverse", "-z", "--format=%B", f"{base}..{head}", "--"], repo_dir)
    messages = [m.strip() for m in out.stdout.decode("utf-8", "replace").split("\0") if m.strip()]
    if not messages:
        return "", ""
    title, _, rest = messages[0].partition("\n")
    body = rest.strip() if len(messages) == 1 else "\n\n".join(messages)
    return title.strip(), body


def read_file_at(repo_dir: str | Path, ref: str, path: str) -> bytes:
    """The content of `path` at `ref`; FileNotFoundError when the path is absent there."""
    commit = resolve_commit(repo_dir, ref)
    clean = path.strip().removeprefix("./").lstrip("/")
    if not clean or "\n" in clean or ".." in clean.split("/"):
        raise FileNotFoundError(f"{path} is not a file in the repository")
    spec = f"{commit}:{clean}"
    infos = _batch_check(repo_dir, [spec])
    sha, kind, _ = infos.get(spec, ("", "missing", 0))
    if kind != "blob":
        raise FileNotFoundError(f"{path} is not a file at {ref}")
    return _batch_read(repo_dir, [sha])[sha]


def read_snapshot(
    repo_dir: str | Path,
    base_ref: str,
    head_ref: str,
    *,
    title: str = "",
    body: str = "",
    spec: str = "",
    base_files_wanted: Iterable[str] = (),
) -> Snapshot:
    """The change from `base_ref` to `head_ref` as a Snapshot, with the wanted base-ref files."""
    repo = check_repository(repo_dir)
    base, head = resolve_commit(repo, base_ref), resolve_commit(repo, head_ref)
    base_tree, head_tree = git_text(
        ["rev-parse", f"{base}^{{tree}}", f"{head}^{{tree}}"], repo
    ).split()
    entries, patches = _diff(repo, base, head)
    head_paths = _tree_paths(repo, head)
    wanted = sorted({p.strip().removeprefix("./") for p in base_files_wanted if "\n" not in p})
    changes, base_files = _read_contents(repo, base, entries, wanted)
    return Snapshot(
        base_sha=base,
        head_sha=head,
        base_tree=base_tree,
        head_tree=head_tree,
        repo=str(repo.resolve()),
        title=title,
        body=body,
        spec=spec,
        changes=tuple(_change(e, patches.get(i, ""), changes) for i, e in enumerate(entries)),
        head_paths=head_paths,
        base_files=base_files,
    )


def _diff(repo: Path, base: str, head: str) -> tuple[list[_Entry], dict[int, str]]:
    config = ["-c", "core.quotePath=false", "-c", f"core.bigFileThreshold={MAX_PARSE_BYTES}"]
    args = [*config, "diff", *DIFF_OPTIONS.split(), base, head, "--"]
    out = run_git(args, repo).stdout
    entries, pos = _raw_entries(out)
    entries, pos = _numstat(out, pos, entries)
    chunks = _patch_chunks(out[pos:])
    patches = dict(enumerate(chunks)) if len(chunks) == len(entries) else {}
    return entries, patches


def _token(out: bytes, pos: int) -> tuple[str, int]:
    end = out.index(b"\0", pos)
    return out[pos:end].decode("utf-8", "replace"), end + 1


def _raw_entries(out: bytes) -> tuple[list[_Entry], int]:
    entries: list[_Entry] = []
    pos = 0
    while out.startswith(b":", pos):
        meta, pos = _token(out, pos + 1)
        src_mode, dst_mode, _src_sha, dst_sha, status = meta.split()
        path, pos = _token(out, pos)
        old_path = None
        if status[0] in "RC":
            old_path, (path, pos) = path, _token(out, pos)
        mode = src_mode if status[0] == "D" else dst_mode
        entries.append(_Entry(path, STATUS.get(status[0], "modified"), old_path, mode, dst_sha))
    return entries, pos


def _numstat(out: bytes, pos: int, entries: list[_Entry]) -> tuple[list[_Entry], int]:
    counted: list[_Entry] = []
    for entry in entries:
        token, pos = _token(out, pos)
        added, deleted, rest = token.split("\t", 2)
        if not rest:
            pos = _token(out, _token(out, pos)[1])[1]
        binary = added == "-"
        counts = (0, 0) if binary else (int(added), int(deleted))
        counted.append(replace(entry, additions=counts[0], deletions=counts[1], binary=binary))
    if out.startswith(b"\0", pos):
        pos += 1
    return counted, pos


def _patch_chunks(patch: bytes) -> list[str]:
    if not patch:
        return []
    pieces = (b"\n" + patch).split(b"\ndiff --git ")[1:]
    chunks: list[str] = []
    for piece in pieces:
        start = piece.find(b"\n@@")
        chunks.append("" if start < 0 else piece[start + 1 :].decode("utf-8", "replace"))
    return chunks


def _tree_paths(repo: Path, head: str) -> frozenset[str]:
    out = run_git(["ls-tree", "-r", "-z", "--full-tree", "--name-only", head], repo).stdout
    return frozenset(p.decode("utf-8", "replace") for p in out.split(b"\0") if p)


def _readable(entry: _Entry) -> bool:
    return not (
        entry.status == "deleted"
        or entry.binary
        or entry.mode in (SYMLINK_MODE, SUBMODULE_MODE)
        or entry.sha == NULL_SHA
    )


def _read_contents(
    repo: Path, base: str, entries: Sequence[_Entry], wanted: Sequence[str]
) -> tuple[dict[str, tuple[int | None, bytes | None]], dict[str, bytes]]:
    blobs = sorted({e.sha for e in entries if e.status != "deleted" and e.mode != SUBMODULE_MODE})
    base_specs = [f"{base}:{path}" for path in wanted]
    infos = _batch_check(repo, [*blobs, *base_specs])
    small = {
        e.sha
        for e in entries
        if _readable(e) and infos.get(e.sha, ("", "", 0))[2] <= MAX_PARSE_BYTES
    }
    base_shas = {
        path: infos[s][0]
        for path, s in zip(wanted, base_specs, strict=True)
        if infos.get(s, ("", "", 0))[1] == "blob"
    }
    contents = _batch_read(repo, sorted(small | set(base_shas.values())))
    sizes = {sha: (infos[sha][2] if sha in infos else None, contents.get(sha)) for sha in blobs}
    return sizes, {path: contents[sha] for path, sha in base_shas.items()}


def _change(
    entry: _Entry, patch: str, blobs: dict[str, tuple[int | None, bytes | None]]
) -> FileChange:
    size, content = (
        blobs.get(entry.sha, (None, None)) if entry.status != "deleted" else (None, None)
    )
    too_large = size is not None and size > MAX_PARSE_BYTES
    return FileChange(
        path=entry.path,
        status=entry.status,
        patch=patch,
        old_path=entry.old_path,
        additions=entry.additions,
        deletions=entry.deletions,
        binary=entry.binary and not too_large,
        symlink=entry.mode == SYMLINK_MODE,
        size=size,
        content=content if _readable(entry) else None,
        submodule=entry.mode == SUBMODULE_MODE,
    )


def _batch_check(repo: str | Path, specs: Sequence[str]) -> dict[str, tuple[str, str, int]]:
    """`spec -> (sha, type, size)` for each object that exists."""
    if not specs:
        return {}
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


def _batch_read(repo: str | Path, shas: Sequence[str]) -> dict[str, bytes]:
    """The content of each blob SHA, read in one `cat-file --batch` run."""
    if not shas:
        return {}
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
    tar = run_git(["archive", "--format=tar", resolve_commit(repo_dir, ref)], repo_dir).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        if hasattr(tarfile, "data_filter"):
            archive.extractall(dest, filter="data")
        else:  # pragma: no cover - Python without tar extraction filters
            archive.extractall(dest)
