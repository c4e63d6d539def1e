"""Read a change from a local git repository into a `Snapshot` (shell: runs git).

The number of git calls does not grow with the number of files: one `rev-parse`, one
`git diff` (raw + numstat + patch in a single run), one `ls-tree`, one `cat-file --batch-check`
and one `cat-file --batch`; when the base tree has `.gitattributes` files, one `update-index` and
one `check-attr` tell which changed files they mark generated, vendored or `-diff`. The marks
are the BASE's (DESIGN.md §2b): the head's `.gitattributes` files, with those the change
touches taken back to their base blobs (from the diff itself, so no second tree listing), so a
change cannot hide its own files from the checks or the judge. Files over 1 MiB are
size-checked and never read; git itself treats them as binary (`core.bigFileThreshold`), so
their patch is not produced either. In a repository a worker keeps (`rubricate.gitio.kept`),
the commits, trees and blobs are asked of its running `cat-file` processes instead.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from rubricate.evidence.snapshot import (
    ATTRIBUTE_NAMES,
    MAX_PARSE_BYTES,
    ChangeStatus,
    FileChange,
    Snapshot,
)
from rubricate.gitio.attributes import base_attribute_files, check_attributes, marks
from rubricate.gitio.refs import batch_check as _batch_check
from rubricate.gitio.refs import batch_read as _batch_read
from rubricate.gitio.refs import check_repository, resolve_commit, tree_ids
from rubricate.gitio.run import run_git

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
    src_mode: str = ""
    src_sha: str = ""
    additions: int = 0
    deletions: int = 0
    binary: bool = False


def read_snapshot(
    repo_dir: str | Path,
    base_ref: str,
    head_ref: str,
    *,
    title: str = "",
    body: str = "",
    spec: str = "",
    base_files_wanted: Iterable[str] = (),
    read_limit: Callable[[str], int] | None = None,
) -> Snapshot:
    """The change from `base_ref` to `head_ref` as a Snapshot, with the wanted base-ref files.

    Head files are read up to 1 MiB, or up to `read_limit(path)` bytes (deliverables).
    """
    repo = check_repository(repo_dir)
    base, head = resolve_commit(repo, base_ref), resolve_commit(repo, head_ref)
    base_tree, head_tree = tree_ids(repo, base, head)
    entries, patches, change_id = _diff(repo, base, head)
    head_paths, head_attributes = _head_tree(repo, head)
    attribute_files = base_attribute_files(head_attributes, entries)
    live = [e.path for e in entries if e.status != "deleted"]
    attributes = check_attributes(repo, attribute_files, live, ATTRIBUTE_NAMES)
    wanted = sorted({p.strip().removeprefix("./") for p in base_files_wanted if "\n" not in p})
    changes, base_files = _read_contents(repo, base, entries, wanted, read_limit)
    return Snapshot(
        base_sha=base,
        head_sha=head,
        base_tree=base_tree,
        head_tree=head_tree,
        change_id=change_id,
        repo=str(repo.resolve()),
        title=title,
        body=body,
        spec=spec,
        changes=tuple(
            replace(_change(e, patches.get(i, ""), changes), attributes=marks(attributes, e.path))
            for i, e in enumerate(entries)
        ),
        head_paths=head_paths,
        base_files=base_files,
    )


def change_of(repo_dir: str | Path, base: str, head: str) -> str:
    """The id of the change from `base` to `head`, as `read_snapshot` gives it (`change_digest`)."""
    return _diff(check_repository(repo_dir), base, head)[2]


def approved_earlier(
    repo_dir: str | Path,
    fork: str,
    head: str,
    approved: Callable[[str], bool],
    limit: int = 50,
) -> bool:
    """Whether the head's change from `fork` is part of an approved change taken from an earlier
    fork: some ancestor of `fork` (the `limit` newest) from which the head's change id (the
    diff digest) is one `approved` takes, and every path the change from `fork` touches ends as
    it does in that change. So a stacked PR whose ancestors landed since its approval brings
    nothing outside what was approved.
    """
    repo = check_repository(repo_dir)
    now = _states(_diff(repo, fork, head)[0])
    out = run_git(["rev-list", f"--max-count={limit}", "--end-of-options", fork, "--"], repo)
    for earlier in out.stdout.decode().split()[1:]:
        entries, _, earlier_id = _diff(repo, earlier, head)
        if approved(earlier_id):
            then = _states(entries)
            return all(then.get(path) == state for path, state in now.items())
    return False


def _states(entries: Iterable[_Entry]) -> dict[str, tuple[str, str]]:
    """Each path a change touches, with its new mode and blob (empty when deleted or moved)."""
    states: dict[str, tuple[str, str]] = {}
    for entry in entries:
        if entry.old_path is not None and entry.status == "renamed":
            states[entry.old_path] = ("", "")
        deleted = entry.status == "deleted"
        states[entry.path] = ("", "") if deleted else (entry.mode, entry.sha)
    return states


def _diff(repo: Path, base: str, head: str) -> tuple[list[_Entry], dict[int, str], str]:
    config = ["-c", "core.quotePath=false", "-c", f"core.bigFileThreshold={MAX_PARSE_BYTES}"]
    args = [*config, "diff", *DIFF_OPTIONS.split(), "--end-of-options", base, head, "--"]
    out = run_git(args, repo).stdout
    entries, raw_end = _raw_entries(out)
    entries, pos = _numstat(out, raw_end, entries)
    chunks = _patch_chunks(out[pos:])
    patches = dict(enumerate(chunks)) if len(chunks) == len(entries) else {}
    return entries, patches, change_digest(out[:raw_end])


def change_digest(raw: bytes) -> str:
    """The id of a change: sha256 of `git diff --raw -z --no-abbrev` from the merge base.

    Each changed path with its old and new mode and blob id, so it is exact (whitespace, modes
    and binary content count, unlike `git patch-id --stable`) and the same after a rebase or a
    merge of the base that leaves the PR's own files as they were. A base change to a file the
    PR also changes makes it a new change, to be looked at again.
    """
    return "diff-raw-sha256:" + hashlib.sha256(raw).hexdigest()


def _token(out: bytes, pos: int) -> tuple[str, int]:
    end = out.index(b"\0", pos)
    return out[pos:end].decode("utf-8", "replace"), end + 1


def _raw_entries(out: bytes) -> tuple[list[_Entry], int]:
    entries: list[_Entry] = []
    pos = 0
    while out.startswith(b":", pos):
        meta, pos = _token(out, pos + 1)
        src_mode, dst_mode, src_sha, dst_sha, status = meta.split()
        path, pos = _token(out, pos)
        old_path = None
        if status[0] in "RC":
            old_path, (path, pos) = path, _token(out, pos)
        mode = src_mode if status[0] == "D" else dst_mode
        kind = STATUS.get(status[0], "modified")
        entries.append(_Entry(path, kind, old_path, mode, dst_sha, src_mode, src_sha))
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


def _head_tree(repo: Path, head: str) -> tuple[frozenset[str], dict[str, str]]:
    """Every path of the head tree, and its `.gitattributes` files (path -> blob id)."""
    out = run_git(["ls-tree", "-r", "-z", "--full-tree", "--end-of-options", head], repo).stdout
    paths: set[str] = set()
    attributes: dict[str, str] = {}
    for line in out.split(b"\0"):
        meta, _, name = line.partition(b"\t")
        path = name.decode("utf-8", "replace")
        paths.add(path)
        if path.rpartition("/")[2] == ".gitattributes" and meta.startswith((b"100644", b"100755")):
            attributes[path] = meta.split()[2].decode()
    paths.discard("")
    return frozenset(paths), attributes


def _readable(entry: _Entry) -> bool:
    return not (
        entry.status == "deleted"
        or entry.binary
        or entry.mode in (SYMLINK_MODE, SUBMODULE_MODE)
        or entry.sha == NULL_SHA
    )


def _read_contents(
    repo: Path,
    base: str,
    entries: Sequence[_Entry],
    wanted: Sequence[str],
    read_limit: Callable[[str], int] | None = None,
) -> tuple[dict[str, tuple[int | None, bytes | None]], dict[str, bytes]]:
    blobs = sorted({e.sha for e in entries if e.status != "deleted" and e.mode != SUBMODULE_MODE})
    base_specs = [f"{base}:{path}" for path in wanted]
    infos = _batch_check(repo, [*blobs, *base_specs])
    small = {
        e.sha
        for e in entries
        if _readable(e) and infos.get(e.sha, ("", "", 0))[2] <= MAX_PARSE_BYTES
    }
    if read_limit is not None:
        small |= {
            e.sha
            for e in entries
            if _readable(replace(e, binary=False))
            and MAX_PARSE_BYTES < infos.get(e.sha, ("", "", 0))[2] <= read_limit(e.path)
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
        content=content if _readable(entry) or too_large else None,
        submodule=entry.mode == SUBMODULE_MODE,
    )
