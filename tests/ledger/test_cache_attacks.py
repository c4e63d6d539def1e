"""Attacks on the derived files an append or the gate trusts. The fold cache head's digests are
public (anyone can compute them): a writer who plants an id in the id index, with a head that
matches, must not make a later append skip a real event as "already present". A job file
planted at another layout's path must not hide the job's latest events from the gate."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from rubricate.bot.jobstate import job_state
from rubricate.errors import LedgerError
from rubricate.ledger.backends import DataBranchStore
from rubricate.ledger.cache import derived_state, encode_ids, id_bucket, read_ids
from rubricate.ledger.paths import CACHE_PATH, job_paths
from rubricate.ledger.store import job_file_events
from tests.ledger.factory import completed_job, event, scored
from tests.ledger.gitutil import BRANCH, bare_remote, branch_files, commit_files, git

KEY = b"k" * 32


def _entries(remote: Path, tree: str) -> dict[str, tuple[str, str]]:
    found = {}
    for line in git("ls-tree", f"{BRANCH}:{tree}" if tree else BRANCH, cwd=remote).splitlines():
        meta, name = line.split("\t")
        mode, _, oid = meta.split()
        found[name] = (mode.lstrip("0") or "0", oid) if mode == "040000" else (mode, oid)
    return found


@pytest.mark.parametrize("key", [None, KEY], ids=["no key", "a ledger key"])
def test_an_id_planted_in_the_index_never_makes_an_append_skip_the_event(
    tmp_path: Path, key: bytes | None
) -> None:
    remote, work = bare_remote(tmp_path), tmp_path / "work"
    with DataBranchStore(str(remote), key=key) as store:
        store.append(completed_job(1, [3] * 5, [3] * 5)[:1])
    request = event("revision_requested", 1, 3, "review:8")  # its id is public: a natural key
    path = id_bucket(request.id)
    files = branch_files(remote)
    planted = read_ids(files[path]) if path in files else set()
    commit_files(remote, {path: encode_ids(planted | {request.id})}, work, "plant an id")
    head = json.loads(files[CACHE_PATH])
    head["derived"] = derived_state(_entries(remote, ""), _entries(remote, ".rubricate"))
    body = {k: v for k, v in head.items() if k != "digest"}  # the digest anyone can compute
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    head["digest"] = hashlib.sha256(text.encode()).hexdigest()
    data = (json.dumps(head, indent=1, sort_keys=True) + "\n").encode()
    commit_files(remote, {CACHE_PATH: data}, work, "a head that matches")
    with DataBranchStore(str(remote), key=key) as store:
        result = store.append([request])
    assert (result.added, result.present) == (1, 0)
    shards = [d for p, d in branch_files(remote).items() if p.startswith("ledger/")]
    assert sum(d.count(request.id.encode()) for d in shards) == 1


def test_a_job_file_planted_at_another_layout_s_path_never_hides_the_job_s_latest_events(
    tmp_path: Path,
) -> None:
    """PR #1234's file is `jobs/1k/1234.json`; a copy without the bot's revision request put at
    layout 1's `jobs/1234.json` (which sorts first) would have the gate see the passing
    approval it withdraws. Two files for one job that differ fail the read instead."""
    remote, pr = bare_remote(tmp_path), 1234
    passing = scored("approved", pr, 2, "comment:7#0", [5] * 5, verdict="pass")
    with DataBranchStore(str(remote), key=KEY) as store:
        store.append(completed_job(pr, [3] * 5, [3] * 5)[:1])
        store.append([passing])
        store.append([event("revision_requested", pr, 3, "review:8")])
    real = json.loads(branch_files(remote)[f"jobs/1k/{pr}.json"])
    planted = {**real, "events": real["events"][:-1]}
    commit_files(remote, {f"jobs/{pr}.json": json.dumps(planted).encode()}, tmp_path / "w")
    with DataBranchStore(str(remote), key=KEY) as store:
        files = store.read_files(frozenset(job_paths("o/r", pr)).__contains__)
    assert sorted(files) == [f"jobs/{pr}.json", f"jobs/1k/{pr}.json"]
    with pytest.raises(
        LedgerError, match=f"jobs/{pr}.json and jobs/1k/{pr}.json: two different job files"
    ):
        job_file_events(files, "o/r", pr, KEY)
    del files[f"jobs/{pr}.json"]
    assert job_state(job_file_events(files, "o/r", pr, KEY), "o/r", pr).approval is None
