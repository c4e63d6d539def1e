"""A branch's commits, each with the lines it added under one folder, and whether it belongs to
the branch's own history (shell: runs git).

The branch's own history is every commit that descends from the root of its mainline (the chain
of first parents from the tip), that root included: the commits the branch went through, one
push after another, and those of the side lines it merged back in. A commit that does not
descend from that root was made on an unrelated history (another repository's data branch, a
copy started afresh) and brought in by a merge.

What a commit added is found by reading each changed file's content in the commit and in its
parent and comparing them line by line (a line ends at "\\n"; a line that is in the commit more
times than in the parent was added). A merge added only what it holds more times than every
parent of the branch's own history holds it: a line one of those parents brought is that
parent's history's, whichever parent is first; a line that only a parent from an unrelated
history brought is the merge's. Which files changed comes from the trees (`git diff-tree
--raw`, no rename detection). No diff heuristic decides what a line is: a NUL byte that makes
git call a file binary, an attribute, a whitespace option or a rename cannot hide an added line.
"""

from __future__ import annotations

import subprocess
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeAlias

from rubricate.gitio.run import GitError, git_env, run_git

AddedLine: TypeAlias = tuple[str, str]
"""(path, line): a line a commit added to a file."""
HistoryCommit: TypeAlias = tuple[str, str, str, str, list[AddedLine], bool]
"""(sha, author, committer, subject, the lines it added, whether it belongs to the branch's own
history), each identity as `Name <email>`."""
HISTORY_REF = "refs/rubricate/history"
_GITLINK = b"160000"


def branch_history(
    url: str, branch: str, env: dict[str, str], dest: Path, folder: str, at: str | None = None
) -> list[HistoryCommit]:
    """Every commit of a remote branch (up to the commit `at`, else its tip), oldest first,
    fetched in full into the bare repository `dest`, with the lines it added under `folder`."""
    if not (dest / "HEAD").exists():
        run_git(["init", "--bare", "--quiet", str(dest)])
    fetch = ["fetch", "--quiet", "--no-tags", "--end-of-options", url]
    run_git([*fetch, f"+refs/heads/{branch}:{HISTORY_REF}"], dest, env=env)
    head = at or HISTORY_REF
    if run_git(["cat-file", "-e", f"{head}^{{commit}}"], dest, check=False).returncode != 0:
        raise GitError(["log", head], 1, f"the branch no longer holds commit {head}: rewritten")
    fields = "%H%x1f%P%x1f%an <%ae>%x1f%cn <%ce>%x1f%s"
    log = run_git(["log", "--reverse", "-z", f"--format={fields}", head, "--"], dest).stdout
    own = _own_history(dest, head)
    commits = []
    with _blob_reader(dest) as read:
        for record in log.decode("utf-8", "replace").split("\0"):
            if not record.strip():
                continue
            sha, parents, author, committer, subject = record.split("\x1f", 4)
            mine = sha in own
            bases: list[str | None] = [p for p in parents.split() if not mine or p in own]
            bases = bases[: None if mine else 1] or [None]
            added = _added_against_all(dest, read, sha, bases, folder)
            commits.append((sha, author, committer, subject, added, mine))
    return commits


def _own_history(repo: Path, head: str) -> set[str]:
    """The commits up to `head` that descend from the root of its mainline, that root included."""
    root = run_git(["rev-list", "--first-parent", "--max-parents=0", head, "--"], repo).stdout
    path = ["rev-list", "--ancestry-path", f"{root.decode().strip()}..{head}", "--"]
    return {root.decode().strip(), *run_git(path, repo).stdout.decode().split()}


def _added_against_all(
    repo: Path, read: Callable[[str], bytes], sha: str, parents: list[str | None], folder: str
) -> list[AddedLine]:
    """The lines under `folder` that commit `sha` holds more times than each of `parents` does
    (None: no parent), in the order the first parent's comparison finds them."""
    found: Counter[AddedLine] | None = None
    ordered: list[AddedLine] = []
    for parent in parents:
        added: list[AddedLine] = []
        for path, old, new in changed_blobs(repo, sha, [parent] if parent else [], folder):
            added += [(path, line) for line in added_lines(read(old) if old else b"", read(new))]
        if found is None:
            found, ordered = Counter(added), added
        else:
            found &= Counter(added)
    left = found or Counter()
    kept = []
    for line in ordered:
        if left[line] > 0:
            left[line] -= 1
            kept.append(line)
    return kept


def changed_blobs(
    repo: Path, sha: str, parent: list[str], folder: str
) -> list[tuple[str, str | None, str]]:
    """(path, blob in the parent or None, blob in the commit) for each file under `folder` that
    the commit adds or changes against `parent` (every file, for none: a root commit)."""
    args = ["diff-tree", "-r", "-z", "--raw", "--no-renames", "--no-commit-id", "--root"]
    out = run_git([*args, "--end-of-options", *parent, sha, "--", folder], repo).stdout
    fields = out.split(b"\0")
    found = []
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        if not meta.startswith(b":"):
            continue
        _, new_mode, old, new, _ = meta[1:].split(b" ", 4)
        if new_mode == _GITLINK or not new.strip(b"0"):
            continue  # deleted, or a submodule: no lines
        name = path.decode("utf-8", "surrogateescape")
        found.append((name, old.decode() if old.strip(b"0") else None, new.decode()))
    return found


def added_lines(old: bytes, new: bytes) -> list[str]:
    """The lines of `new` that `old` does not hold as many times (blank lines left out), as text
    that encodes back to the same bytes."""
    if not old or (old.endswith(b"\n") and new.startswith(old)):
        fresh = new[len(old) :].split(b"\n")  # appended to: the common case, without counting
    else:
        before = Counter(old.split(b"\n"))
        fresh = []
        for line in new.split(b"\n"):
            if before[line] > 0:
                before[line] -= 1
            else:
                fresh.append(line)
    return [line.decode("utf-8", "surrogateescape") for line in fresh if line.strip()]


@contextmanager
def _blob_reader(repo: Path) -> Iterator[Callable[[str], bytes]]:
    """A function from a blob id to its content, through one `git cat-file --batch` process."""
    proc = subprocess.Popen(
        ["git", "cat-file", "--batch"],
        cwd=repo,
        env=git_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout

    def read(blob: str) -> bytes:
        stdin.write(blob.encode() + b"\n")
        stdin.flush()
        header = stdout.readline().split()
        if len(header) != 3:
            raise GitError(["cat-file", blob], 1, f"no blob {blob} in the fetched history")
        data = stdout.read(int(header[2]) + 1)
        return data[:-1]

    try:
        yield read
    finally:
        stdin.close()
        proc.wait(timeout=60)
