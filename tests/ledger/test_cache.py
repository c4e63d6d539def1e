"""The fold cache is trusted only when everything about it verifies; else the append folds all."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping

import pytest

from rubricate.ledger import cache as cache_module
from rubricate.ledger.cache import (
    CachedJob,
    bucket_files,
    cache_head,
    derived_entries,
    id_bucket,
    load_cache,
    read_head,
    read_ids,
)
from rubricate.ledger.paths import CACHE_PATH, git_blob_id
from rubricate.ledger.plan import plan_rebuild
from rubricate.ledger.reputation_config import ReputationConfig, ReputationWeights
from tests.ledger.factory import completed_job, event
from tests.ledger.memory_branch import apply_events as _apply
from tests.ledger.memory_branch import derived_only as _derived
from tests.ledger.memory_branch import full_derive as _full

RATING = event("rated", 2, 30, "rating", rating=5)


def _two_jobs() -> dict[str, bytes]:
    tree: dict[str, bytes] = {}
    _apply(tree, completed_job(1, [1] * 5, [1] * 5))
    _apply(tree, completed_job(2, [4] * 5, [5] * 5, author="bob"))
    assert _apply(tree, [event("disputed", 2, 20, "d", author="bob")]).incremental
    return tree


def _head(tree: Mapping[str, bytes]) -> dict[str, object]:
    head = json.loads(tree[CACHE_PATH])
    assert isinstance(head, dict)
    return head


def _encode(head: Mapping[str, object]) -> bytes:
    return (json.dumps(head, indent=1, sort_keys=True) + "\n").encode()


def test_a_hand_edited_head_is_not_used() -> None:
    tree = _two_jobs()
    tree["ledger/2024-03.jsonl"] += b"{broken\n"
    assert not _apply(tree, [event("rated", 1, 20, "r1", rating=4)]).incremental
    assert len(_head(tree)["corrupt"]) == 1  # type: ignore[arg-type]
    changes: list[dict[str, object]] = [{"corrupt": []}, {"repos": ["o/r", "x/y"]}, {"config": {}}]
    for change in changes:
        copy = {**tree, CACHE_PATH: _encode({**_head(tree), **change})}
        assert read_head(copy[CACHE_PATH]) is None
        assert not _apply(copy, [RATING]).incremental
        assert json.loads(copy["reputation.json"])["ledger"]["corrupt_lines"] == 1
        assert _derived(copy) == _full(copy)


def test_a_cache_written_by_another_fold_version_is_not_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tree = _two_jobs()
    with monkeypatch.context() as patched:
        patched.setattr(cache_module, "FOLD_VERSION", 1)
        tree[CACHE_PATH] = _full(tree)[CACHE_PATH]
        assert read_head(tree[CACHE_PATH]) is not None
    assert _head(tree)["fold"] == 1
    assert read_head(tree[CACHE_PATH]) is None
    assert not _apply(tree, [RATING]).incremental
    assert _derived(tree) == _full(tree)


def test_a_hand_edited_untouched_derived_file_makes_the_append_rebuild_everything() -> None:
    tree = _two_jobs()
    bucket = id_bucket(completed_job(1, [1] * 5, [1] * 5)[0].id)
    edits = {
        "jobs/1.json": b'{"tampered":true}\n',
        "badges/alice.json": b"{}\n",
        "reputation.json": b"{}\n",
        bucket: b"",
        "badges/ghost.svg": b"<svg/>",
    }
    for path, data in edits.items():
        copy = {**tree, path: data}
        plan = _apply(copy, [RATING])
        assert not plan.incremental, path
        assert _derived(copy) == _full(copy)
    missing = {p: d for p, d in tree.items() if p != "badges/alice.svg"}
    assert not _apply(missing, [RATING]).incremental
    assert _derived(missing) == _full(missing)


def test_a_self_consistent_but_wrong_row_of_a_touched_job_is_caught() -> None:
    tree = _two_jobs()
    head = read_head(tree[CACHE_PATH])
    assert head is not None
    cache = load_cache(head, {p: tree[p] for p in head["buckets"]})
    assert cache is not None
    wrong = dataclasses.replace(cache.jobs[("o/r", 2)].facts, rubric_quality=0.0)
    forged = dataclasses.replace(
        cache, jobs={**cache.jobs, ("o/r", 2): CachedJob(wrong, cache.jobs[("o/r", 2)].file_id)}
    )
    tree.update(bucket_files(forged))
    tree[CACHE_PATH] = cache_head(forged, derived_entries(_ids(tree)))
    assert read_head(tree[CACHE_PATH]) is not None
    plan = _apply(tree, [RATING])
    assert not plan.incremental
    assert _derived(tree) == _full(tree)


def test_ids_are_unique_across_jobs_on_both_ways() -> None:
    tree = _two_jobs()
    first = completed_job(1, [1] * 5, [1] * 5)[0]
    reused = event("abandoned", 3, 1, "x").model_copy(update={"id": first.id})
    plan = _apply(tree, [reused, event("abandoned", 3, 2, "y")])
    assert plan.incremental
    assert (len(plan.added), plan.present) == (1, 1)
    assert first.id in read_ids(tree[id_bucket(first.id)])
    assert _derived(tree) == _full(tree)
    tree["badges/ghost.json"] = b"{}"
    plan = _apply(tree, [reused])
    assert (plan.added, plan.present, plan.incremental) == ((), 1, False)


def test_without_a_cache_the_config_recorded_in_reputation_json_is_kept() -> None:
    config = ReputationConfig(weights=ReputationWeights(completion_rate=1, timeliness_score=0))
    tree: dict[str, bytes] = {}
    _apply(tree, completed_job(1, [1] * 5, [1] * 5), config)
    for path in [p for p in tree if p.startswith(".rubricate/")]:
        del tree[path]
    _apply(tree, [event("rated", 1, 30, "r", rating=1)])
    assert json.loads(tree["reputation.json"])["config"] == config.model_dump(mode="json")
    assert _derived(tree) == _full(tree, config)


def test_a_rebuild_regenerates_every_derived_file_and_adds_nothing() -> None:
    tree = _two_jobs()
    ids = _ids(tree)
    clean = plan_rebuild(ids, lambda paths: {p: tree[p] for p in paths}, None)
    assert clean.added == ()
    assert {p: d for p, d in clean.files.items() if tree.get(p) != d} == {}
    tree["jobs/1.json"] = b"{}"
    tree["badges/ghost.json"] = b"{}"
    fixed = plan_rebuild(_ids(tree), lambda paths: {p: tree[p] for p in paths}, None)
    assert fixed.deletions == ("badges/ghost.json",)
    assert fixed.files["jobs/1.json"] == _full(tree)["jobs/1.json"]


def _ids(tree: Mapping[str, bytes]) -> dict[str, str]:
    return {p: git_blob_id(d) for p, d in tree.items()}
