"""Derived files: layout, badges, determinism, and incremental appends equal to a full recompute."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from rubricate.ledger.cache import (
    bucket_files,
    cache_head,
    derived_entries,
    id_bucket,
    load_cache,
    read_head,
)
from rubricate.ledger.derive import value_badge
from rubricate.ledger.event import Event
from rubricate.ledger.paths import CACHE_PATH, author_stem, git_blob_id
from rubricate.ledger.reputation_config import ReputationConfig, ReputationWeights
from tests.ledger.factory import completed_job, event
from tests.ledger.memory_branch import apply_events as _apply
from tests.ledger.memory_branch import derived_only as _derived
from tests.ledger.memory_branch import full_derive as _full
from tests.ledger.test_reputation import ledgers


def test_single_repository_layout_and_badges() -> None:
    tree: dict[str, bytes] = {}
    _apply(tree, completed_job(1, [5, 5, 5, 5, 5], [5, 5, 5, 5, 5]))
    assert sorted(tree) == [
        ".rubricate/facts/0.jsonl",
        CACHE_PATH,
        *sorted({id_bucket(e.id) for e in completed_job(1, [5] * 5, [5] * 5)}),
        ".rubricate/totals/o/r.json",
        "badges/alice.json",
        "badges/alice.svg",
        "badges/repo.json",
        "badges/repo.svg",
        "jobs/1.json",
        "ledger/2024-03.jsonl",
        "reputation.json",
    ]
    badge = json.loads(tree["badges/alice.json"])
    assert badge == {
        "schemaVersion": 1,
        "label": "reputation",
        "message": "1.00",
        "color": "brightgreen",
    }
    assert tree["badges/alice.svg"].startswith(b"<?xml")
    assert b"1.00" in tree["badges/alice.svg"]
    job = json.loads(tree["jobs/1.json"])
    assert job["state"] == "completed"
    assert job["rubric_quality"] == 1.0
    assert [e["kind"] for e in job["events"]] == ["first_submission", "final_approval"]
    assert job["first_submission"]["complete"]
    assert job["final_approval"]["normalized"] == 1.0


def test_several_repositories_get_their_own_folders() -> None:
    tree: dict[str, bytes] = {}
    _apply(
        tree,
        [event("first_submission", 1, 0, "a"), event("first_submission", 1, 0, "a", repo="x/y")],
    )
    assert "jobs/o/r/1.json" in tree
    assert "jobs/x/y/1.json" in tree
    assert "badges/x/y/repo.json" in tree
    assert "badges/o/r/alice.svg" in tree
    assert "jobs/1.json" not in tree


def test_a_new_repository_moves_files_and_deletes_the_old_ones() -> None:
    tree: dict[str, bytes] = {}
    _apply(tree, [event("first_submission", 1, 0, "a")])
    plan = _apply(tree, [event("first_submission", 1, 0, "a", repo="x/y")])
    assert not plan.incremental
    assert "jobs/1.json" in plan.deletions
    assert _derived(tree) == _full(tree)


def test_badge_colours_and_names() -> None:
    assert value_badge("r", None).message == "no data"
    assert value_badge("r", None).color == "lightgrey"
    assert value_badge("r", 0.42).color == "orange"
    assert value_badge("r", 0.8).message == "0.80"
    assert author_stem("repo") == "repo_"
    assert author_stem("dependabot[bot]") == "dependabot_bot_"


def test_the_cache_round_trips() -> None:
    tree: dict[str, bytes] = {}
    _apply(
        tree, [*completed_job(1, [4, 4, 4, 4, 4], [5, 5, 5, 5, 5]), event("abandoned", 2, 3, "x")]
    )
    head = read_head(tree[CACHE_PATH])
    assert head is not None
    buckets = {p: tree[p] for p in head["buckets"]}
    assert list(buckets) == [".rubricate/facts/0.jsonl"]
    cache = load_cache(head, buckets)
    assert cache is not None
    assert bucket_files(cache) == buckets
    derived = derived_entries({p: git_blob_id(d) for p, d in tree.items()})
    assert cache_head(cache, derived) == tree[CACHE_PATH]
    assert (cache.events, cache.newest_at) == (3, completed_job(1, [4] * 5, [5] * 5)[1].at)
    assert read_head(b"{not json") is None
    assert load_cache(head, dict.fromkeys(buckets, b"tampered")) is None
    row = buckets[".rubricate/facts/0.jsonl"].split(b"\n")[0] + b"\n"
    assert load_cache(head, {".rubricate/facts/0.jsonl": row + row}) is None  # a job twice
    assert load_cache(head, {".rubricate/facts/7.jsonl": row}) is None  # in the wrong bucket


def test_a_replay_changes_nothing() -> None:
    tree: dict[str, bytes] = {}
    events = completed_job(1, [4, 4, 4, 4, 4], [5, 5, 5, 5, 5])
    _apply(tree, events)
    plan = _apply(tree, events)
    assert (plan.added, plan.present, dict(plan.files)) == ((), 2, {})


def test_a_tampered_job_file_makes_the_append_fold_everything() -> None:
    tree: dict[str, bytes] = {}
    _apply(tree, completed_job(1, [4, 4, 4, 4, 4], [5, 5, 5, 5, 5]))
    tree["jobs/1.json"] = b'{"events": []}\n'
    plan = _apply(tree, [event("rated", 1, 20, "r", rating=3)])
    assert not plan.incremental
    assert _derived(tree) == _full(tree)


def test_a_changed_config_regenerates_every_badge() -> None:
    tree: dict[str, bytes] = {}
    _apply(tree, completed_job(1, [4, 4, 4, 4, 4], [5, 5, 5, 5, 5], author="bob"))
    _apply(tree, completed_job(2, [2, 2, 2, 2, 2], [2, 2, 2, 2, 2]))
    weights = ReputationWeights(completion_rate=0, dispute_penalty=0)
    config = ReputationConfig(weights=weights)
    _apply(tree, [event("rated", 2, 30, "r", rating=5)], config)
    assert _derived(tree) == _full(tree, config)


def test_without_a_config_the_recorded_one_is_kept() -> None:
    config = ReputationConfig(sla_hours=5)
    tree: dict[str, bytes] = {}
    _apply(tree, completed_job(1, [4, 4, 4, 4, 4], [5, 5, 5, 5, 5]), config)
    _apply(tree, completed_job(2, [4, 4, 4, 4, 4], [5, 5, 5, 5, 5]))
    assert json.loads(tree["reputation.json"])["config"]["sla_hours"] == 5
    assert _derived(tree) == _full(tree, config)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), ledger=ledgers())
def test_incremental_appends_equal_a_full_recompute(
    data: st.DataObject, ledger: list[Event]
) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(ledger)), max_size=4)))
    tree: dict[str, bytes] = {}
    start = 0
    for cut in [*cuts, len(ledger)]:
        _apply(tree, ledger[start:cut])
        start = cut
    replay = data.draw(st.lists(st.sampled_from(ledger), max_size=3))
    assert not _apply(tree, replay).added
    assert _derived(tree) == _full(tree)


def test_badge_svgs_do_not_depend_on_how_many_were_drawn_before() -> None:
    first = value_badge("reputation", 0.5).svg()
    for value in (0.1, 0.2, 0.3):
        value_badge("x", value).svg()
    from rubricate.ledger import derive

    derive._render_svg.cache_clear()
    assert value_badge("reputation", 0.5).svg() == first
    assert b"rubricate_" in first


def test_an_unreadable_cache_head_means_a_full_fold() -> None:
    tree: dict[str, bytes] = {}
    _apply(tree, completed_job(1, [4, 4, 4, 4, 4], [5, 5, 5, 5, 5]))
    for broken in (b"[]", b'{"format": 3}', b'{"format": 3, "repos": 1, "shards": {}}', b"\xff"):
        copy = {**tree, CACHE_PATH: broken}
        plan = _apply(copy, [event("rated", 1, 20, "r", rating=3)])
        assert not plan.incremental
        assert _derived(copy) == _full(copy)
