"""An append writes what its events touch: their job, its bucket folder, the month's last shard,
the authors' running totals; and the state it leaves equals a full fold, byte for byte."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Mapping

from rubricate.ledger.codec import SHARD_BYTES, parse_ledger
from rubricate.ledger.fold import fold_job
from rubricate.ledger.paths import CACHE_PATH, git_blob_id, job_paths
from rubricate.ledger.plan import plan_append, plan_rebuild, prepare
from rubricate.ledger.reputation import Totals, job_terms
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.ledger.treeids import Entry, flat_listing
from tests.ledger.factory import completed_job, event
from tests.ledger.memory_branch import apply_events as _apply
from tests.ledger.memory_branch import derived_only as _derived
from tests.ledger.memory_branch import full_derive as _full


def test_after_many_appends_the_incremental_state_equals_a_full_fold() -> None:
    chance = random.Random(29)
    tree: dict[str, bytes] = {}
    for step in range(60):
        pr = chance.choice([1, 2, 3, 999, 1000, 1234, 2500])
        author = chance.choice(["alice", "bob", "carol"])
        kind = chance.choice(["rated", "disputed", "abandoned", "first_submission"])
        extra = {"rating": chance.randint(1, 5)} if kind == "rated" else {}
        events = [event(kind, pr, step, f"d{step}", author=author, actor=author, **extra)]
        if step % 7 == 0:
            events = completed_job(pr, [chance.randint(1, 5)] * 5, [5] * 5, step, author=author)
        plan = _apply(tree, events)
        assert plan.incremental or step == 0 or not plan.added
    assert _derived(tree) == _full(tree)


def test_an_append_rewrites_only_its_job_and_its_authors() -> None:
    tree: dict[str, bytes] = {}
    for pr in range(1, 41):
        _apply(tree, completed_job(pr, [3] * 5, [4] * 5, pr, author=f"a{pr % 4}"))
    plan = _apply(tree, [event("rated", 7, 50, "r7", rating=5, actor="m")])
    assert plan.incremental
    written = sorted(plan.files)
    assert [p for p in written if p.startswith("jobs/")] == ["jobs/7.json"]
    # A rating moves a3's reputation, not the repository's rubric quality: one badge is drawn.
    assert [p for p in written if p.startswith("badges/")] == ["badges/a3.json", "badges/a3.svg"]
    assert _derived(tree) == _full(tree)


def test_an_append_that_moves_no_badge_draws_none() -> None:
    tree: dict[str, bytes] = {}
    for pr in range(1, 41):
        _apply(tree, completed_job(pr, [3] * 5, [4] * 5, pr, author=f"a{pr % 4}"))
    before = {p: d for p, d in tree.items() if p.startswith("badges/")}
    plan = _apply(tree, [event("first_submission", 41, 50, "s41", author="a1")])
    assert plan.incremental
    assert "reputation.json" in plan.files
    assert not [p for p in plan.files if p.startswith("badges/")]
    assert {p: d for p, d in tree.items() if p.startswith("badges/")} == before
    assert _derived(tree) == _full(tree)


def test_jobs_from_1000_on_are_kept_in_a_folder_per_thousand() -> None:
    tree: dict[str, bytes] = {}
    _apply(tree, completed_job(12345, [3] * 5, [4] * 5))
    _apply(tree, completed_job(999, [3] * 5, [4] * 5))
    assert {p for p in tree if p.startswith("jobs/")} == {"jobs/12k/12345.json", "jobs/999.json"}
    assert job_paths("o/r", 12345)[0] == "jobs/12k/12345.json"
    assert "jobs/12345.json" in job_paths("o/r", 12345)  # where layout 1 kept it


def test_a_layout_1_branch_is_moved_by_a_rebuild() -> None:
    tree: dict[str, bytes] = {}
    _apply(tree, completed_job(1234, [3] * 5, [4] * 5))
    tree["jobs/1234.json"] = tree.pop("jobs/1k/1234.json")
    head = json.loads(tree[CACHE_PATH])
    tree[CACHE_PATH] = json.dumps({**head, "format": 3}).encode()
    ids = {p: git_blob_id(d) for p, d in tree.items()}
    plan = plan_rebuild(ids, lambda paths: {p: tree[p] for p in paths}, None)
    assert "jobs/1234.json" in plan.deletions
    assert "jobs/1k/1234.json" in plan.files


def test_a_full_shard_takes_no_more_appends() -> None:
    tree: dict[str, bytes] = {}
    _apply(tree, completed_job(1, [3] * 5, [4] * 5))
    tree["ledger/2024-03.jsonl"] += b"\n" * SHARD_BYTES  # blank lines: the shard is full
    plan = _apply(tree, [event("rated", 1, 30, "late", rating=4, actor="m")])
    assert "ledger/2024-03/0001.jsonl" in plan.files
    assert "ledger/2024-03.jsonl" not in plan.files
    parsed = parse_ledger({p: d.decode() for p, d in tree.items() if p.startswith("ledger/")})
    assert (len(parsed.events), parsed.misplaced) == (3, ())
    assert _derived(tree) == _full(tree)


def test_totals_are_exact_in_any_order() -> None:
    config = ReputationConfig()
    jobs = [fold_job(completed_job(pr, [pr % 5 + 1] * 5, [5] * 5)).facts for pr in range(1, 30)]
    terms = [job_terms(j, config) for j in jobs]
    forward, backward = Totals.of(terms), Totals.of(reversed(terms))
    assert forward.row() == backward.row()
    forward.add(terms[3], -1)
    assert forward.row() == Totals.of(terms[:3] + terms[4:]).row()
    assert Totals.from_row(json.loads(json.dumps(forward.row()))).row() == forward.row()


class _Directories(Mapping[str, str]):
    """A tree that lists one directory at a time and refuses to be listed in full."""

    def __init__(self, files: Mapping[str, bytes]) -> None:
        self.ids = {p: git_blob_id(d) for p, d in files.items()}
        self.listed: list[str] = []
        self._listing = flat_listing(self.ids)

    def entries(self, directory: str) -> Mapping[str, Entry]:
        self.listed.append(directory)
        return self._listing(directory)

    def __getitem__(self, path: str) -> str:
        parent, _, name = path.rpartition("/")
        mode, oid = self.entries(parent).get(name, ("40000", ""))
        if mode == "40000":
            raise KeyError(path)
        return oid

    def __iter__(self) -> Iterator[str]:
        raise AssertionError("an incremental append listed the whole tree")

    def __len__(self) -> int:
        raise AssertionError("an incremental append listed the whole tree")


def test_an_append_lists_only_the_directories_it_touches() -> None:
    tree: dict[str, bytes] = {}
    for pr in range(1, 30):
        _apply(tree, completed_job(pr * 97, [3] * 5, [4] * 5, pr, author=f"a{pr % 4}"))
    directories = _Directories(tree)
    batch = prepare([event("rated", 1067, 50, "r", rating=5, actor="m")])
    plan = plan_append(directories, lambda paths: {p: tree[p] for p in paths}, batch, None)
    assert plan.incremental
    listed = set(directories.listed)
    assert {"", ".rubricate", "jobs", "jobs/1k", "ledger", ".rubricate/ids"} <= listed
    assert not any(d.startswith("jobs/2k") or d == "jobs/0k" for d in listed)
    tree.update(plan.files)
    assert _derived(tree) == _full(tree)


def test_one_large_append_fills_a_shard_then_starts_the_next() -> None:
    tree: dict[str, bytes] = {}
    jobs = [e for pr in range(1, 200) for e in completed_job(pr, [3] * 5, [4] * 5, pr / 100)]
    _apply(tree, jobs)
    shards = sorted(p for p in tree if p.startswith("ledger/"))
    assert shards[:2] == ["ledger/2024-03.jsonl", "ledger/2024-03/0001.jsonl"]
    assert all(len(tree[p]) < SHARD_BYTES + 2048 for p in shards)
    assert len(tree[shards[0]]) >= SHARD_BYTES
    parsed = parse_ledger({p: tree[p].decode() for p in shards})
    assert (len(parsed.events), parsed.misplaced) == (len(jobs), ())
    assert _derived(tree) == _full(tree)
