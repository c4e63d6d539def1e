"""`ledger verify --fix` folds the ledger once: the verifying fold writes the files that differ
as it produces them, and the written files are checked against the fold's ids instead of being
folded again. Each kind of fault is fixed so that a plain `verify` then passes."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import pytest

from rubricate.cli.main import main
from rubricate.errors import DataBranchError
from rubricate.gitio.fastimport import CommitStream
from rubricate.gitio.workspace import GitWorkspace
from rubricate.ledger.backends import (
    BranchWriter,
    DataBranchStore,
    DirectoryBackend,
    DirectoryStore,
)
from rubricate.ledger.codec import is_shard
from rubricate.ledger.event import Event
from rubricate.ledger.paths import CACHE_PATH
from rubricate.ledger.store import RetryPolicy
from tests.ledger.factory import completed_job, event
from tests.ledger.gitutil import BRANCH, bare_remote, branch_files, git

NO_WAIT = RetryPolicy(base_delay=0.0)


def _events() -> list[Event]:
    found = completed_job(1, [4, 3, 3, 3, 5], [5, 5, 5, 5, 5])
    found += completed_job(1234, [3] * 5, [4] * 5, hours=24 * 40, author="bob")
    return found


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """A bare remote whose data branch holds two jobs in two monthly shards."""
    path = bare_remote(tmp_path)
    with DataBranchStore(str(path), retry=NO_WAIT) as store:
        store.append(_events())
    return path


def _old_layout(files: Mapping[str, bytes]) -> dict[str, bytes | None]:
    """The branch as layout 1 kept it: #1234's job file at `jobs/1234.json`, cache format 3."""
    head = json.loads(files[CACHE_PATH])
    return {
        "jobs/1234.json": files["jobs/1k/1234.json"],
        "jobs/1k/1234.json": None,
        CACHE_PATH: json.dumps({**head, "format": 3}).encode(),
    }


FAULTS: dict[str, Callable[[Mapping[str, bytes]], dict[str, bytes | None]]] = {
    "stale": lambda files: {"jobs/1.json": b'{"tampered":true}\n'},
    "missing": lambda files: {"badges/bob.svg": None, "reputation.json": None},
    "not derived": lambda files: {"badges/ghost.json": b"{}\n"},
    "old layout": _old_layout,
}


def _change(remote: Path, work: Path, change: Mapping[str, bytes | None]) -> None:
    """Commit these files (None deletes one) on the branch by hand."""
    git("clone", "--quiet", "--branch", BRANCH, str(remote), str(work))
    for path, data in change.items():
        if data is None:
            (work / path).unlink()
        else:
            (work / path).parent.mkdir(parents=True, exist_ok=True)
            (work / path).write_bytes(data)
    git("add", "--all", cwd=work)
    git("commit", "--quiet", "-m", "hand", cwd=work)
    git("push", "--quiet", "origin", BRANCH, cwd=work)


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_each_fault_is_fixed_in_one_commit_then_verify_passes(
    fault: str, remote: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    right = branch_files(remote)
    _change(remote, tmp_path / "hand", FAULTS[fault](right))
    assert main(["ledger", "verify", "--remote", str(remote)]) == 1
    before = git("rev-parse", BRANCH, cwd=remote)
    capsys.readouterr()
    assert main(["ledger", "verify", "--remote", str(remote), "--fix"]) == 0
    out = capsys.readouterr().out
    assert "(rebuilt)" in out
    assert out.rstrip().endswith("clean")
    assert git("rev-parse", f"{BRANCH}~1", cwd=remote) == before
    assert main(["ledger", "verify", "--remote", str(remote)]) == 0
    assert branch_files(remote) == right


def _bad_line(remote: Path, work: Path, line: bytes) -> tuple[str, bytes]:
    """Add a line that is no event to the first shard, and make `jobs/1.json` stale."""
    shard = next(p for p in sorted(branch_files(remote)) if is_shard(p))
    text = branch_files(remote)[shard] + line
    _change(remote, work, {shard: text, "jobs/1.json": b"{}\n"})
    return shard, text


def test_a_corrupt_line_is_kept_aside_and_the_rest_fixed(
    remote: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shard, text = _bad_line(remote, tmp_path / "hand", b"{x\n")
    capsys.readouterr()
    assert main(["ledger", "verify", "--remote", str(remote), "--fix"]) == 1
    out = capsys.readouterr().out
    assert "jobs/1.json: out of date (rebuilt)" in out
    assert f"{shard}:" in out
    assert "1 problem(s)" in out
    assert branch_files(remote)[shard] == text
    assert main(["ledger", "verify", "--remote", str(remote)]) == 1
    assert capsys.readouterr().out.rstrip().endswith("1 problem(s)")  # only the corrupt line


def test_the_fix_reads_each_shard_as_one_fold_does(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    with DirectoryStore(str(data)) as store:
        store.append(_events())
    (data / "jobs" / "1.json").write_bytes(b"{}\n")
    reads: list[str] = []
    original = DirectoryBackend._read

    def counted(self: DirectoryBackend, relative: str) -> bytes:
        reads.append(relative)
        return original(self, relative)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(DirectoryBackend, "_read", counted)
        with DirectoryStore(str(data)) as store:
            fixed = store.fix()
    shards = [p for p in reads if is_shard(p)]
    # hashed once by the tip, then the light pass and the fold: 3 reads (9 with a refold)
    assert len(shards) == 3 * len(set(shards)) == 6
    assert fixed.found.stale == ("jobs/1.json: out of date",)
    assert fixed.report.clean
    with DirectoryStore(str(data)) as store:
        assert store.verify().clean


def test_files_are_written_while_the_fold_still_reads_the_ledger(
    remote: Path, tmp_path: Path
) -> None:
    last = sorted(p for p in branch_files(remote) if is_shard(p))[-1]
    last_id = git("rev-parse", f"{BRANCH}:{last}", cwd=remote)
    _change(remote, tmp_path / "hand", {"jobs/1.json": b"{}\n"})
    streams: list[CommitStream] = []
    running: list[bool] = []
    make, reader = GitWorkspace.stream, GitWorkspace.read_blobs

    def stream(self: GitWorkspace, parent: str | None, message: str) -> CommitStream:
        streams.append(make(self, parent, message))
        return streams[-1]

    def read_blobs(self: GitWorkspace, ids: Iterable[str]) -> dict[str, bytes]:
        found = reader(self, ids)
        if last_id in found:
            running.append(any(s.started for s in streams))
        return found

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(GitWorkspace, "stream", stream)
        patch.setattr(GitWorkspace, "read_blobs", read_blobs)
        with DataBranchStore(str(remote), retry=NO_WAIT) as store:
            fixed = store.fix()
    assert fixed.result.commit is not None
    # the last shard is read by the light pass, then by the fold: by then job 1 (whose last
    # shard is the first) was folded, and its file sent to git
    assert running == [False, True]


def test_a_written_tree_that_is_not_the_folds_is_never_pushed(remote: Path, tmp_path: Path) -> None:
    _change(remote, tmp_path / "hand", {"jobs/1.json": b"{}\n"})
    before = git("rev-parse", BRANCH, cwd=remote)
    put = BranchWriter.put

    def wrong(self: BranchWriter, path: str, data: bytes) -> None:
        put(self, path, data + b" ")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(BranchWriter, "put", wrong)
        with (
            DataBranchStore(str(remote), retry=NO_WAIT) as store,
            pytest.raises(DataBranchError, match=r"the fix wrote other files: jobs/1\.json"),
        ):
            store.fix()
    assert git("rev-parse", BRANCH, cwd=remote) == before


def test_a_branch_that_moved_during_the_fix_is_fixed_from_its_new_tip(
    remote: Path, tmp_path: Path
) -> None:
    _change(remote, tmp_path / "hand", {"jobs/1.json": b"{}\n"})
    late = event("rated", 1, 30, "late", rating=4, actor_role="maintain")
    reader = GitWorkspace.read_blobs
    raced: list[bool] = []

    def racing(self: GitWorkspace, ids: Iterable[str]) -> dict[str, bytes]:
        if not raced:
            raced.append(True)
            with DataBranchStore(str(remote), retry=NO_WAIT) as other:
                other.append([late])
        return reader(self, ids)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(GitWorkspace, "read_blobs", racing)
        with DataBranchStore(str(remote), retry=NO_WAIT) as store:
            fixed = store.fix()
    assert fixed.result.attempts == 2
    with DataBranchStore(str(remote), retry=NO_WAIT) as store:
        report = store.verify()
    assert report.clean
    assert report.events == len(_events()) + 1


def test_files_of_a_layout_proved_wrong_are_never_written(remote: Path, tmp_path: Path) -> None:
    _bad_line(remote, tmp_path / "hand", b'{"repo": "x/y", "pr": 7, "kind": "nonsense"}\n')
    with DataBranchStore(str(remote), retry=NO_WAIT) as store:
        fixed = store.fix()  # the light pass took x/y for a repository: two repositories' layout
    assert fixed.result.commit is not None
    assert "jobs/1.json: out of date" in fixed.found.stale
    assert not [p for p in branch_files(remote) if p.startswith(("jobs/o/", "jobs/x/"))]
    with DataBranchStore(str(remote), retry=NO_WAIT) as store:
        report = store.verify()
    assert (report.stale, len(report.problems)) == ((), 1)  # the line is kept aside


def test_a_directory_is_fixed_in_place_and_checked_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    with DirectoryStore(str(data)) as store:
        store.append(_events())
    right = {p.relative_to(data).as_posix(): p.read_bytes() for p in data.rglob("*") if p.is_file()}
    (data / "reputation.json").unlink()
    (data / "badges" / "ghost.json").write_bytes(b"{}\n")
    (data / "jobs" / "1234.json").write_bytes((data / "jobs" / "1k" / "1234.json").read_bytes())
    (data / "jobs" / "1k" / "1234.json").unlink()
    assert main(["ledger", "verify", "--data", str(data), "--fix"]) == 0
    assert "rebuilt the derived files from the whole ledger in place" in capsys.readouterr().out
    found = {p.relative_to(data).as_posix(): p.read_bytes() for p in data.rglob("*") if p.is_file()}
    assert found == right
    assert main(["ledger", "verify", "--data", str(data)]) == 0
