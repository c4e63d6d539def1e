"""Reputation: hand-computed components, exclusions, renormalized weights and coverage."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rubricate.ledger.confidence import Component
from rubricate.ledger.event import Event
from rubricate.ledger.reputation import COMPONENTS, Entries, compute_reputation
from rubricate.ledger.reputation_config import ReputationConfig, ReputationWeights, TrustWeights
from tests.ledger.factory import AGORA_IDS, completed_job, event, scored

DEFAULT = ReputationConfig()


def _alice_ledger() -> list[Event]:
    # job 1: on time (deadline 20 h after opening, merged at 10 h), two ratings, rq 0.72
    job1 = [
        scored("first_submission", 1, 0, "o1", [2, 2, 2, 2, 2], source="auto"),
        scored("first_submission", 1, 1, "c1", {"quality": 4, "spec_adherence": 5}),
        scored("final_approval", 1, 10, "m1", [5, 5, 5, 5, 5], deadline=_h(20)),
        event("rated", 1, 11, "r1", rating=5, actor_role="maintain", actor="mia"),
        event("rated", 1, 12, "r2", rating=2, actor_role="write", actor="walt"),
    ]
    # job 2: late (deadline 5 h), disputed, incomplete first submission → no rq
    job2 = [
        scored("first_submission", 2, 0, "o2", [4, 4], source="auto"),
        scored("final_approval", 2, 10, "m2", [4, 4, 4, 4, 4], deadline=_h(5)),
        event("disputed", 2, 30, "d2", actor_role="maintain"),
    ]
    job3 = [event("first_submission", 3, 0, "o3"), event("abandoned", 3, 5, "x3")]
    # job 4: open; its rating is left out
    job4 = [event("first_submission", 4, 0, "o4"), event("rated", 4, 1, "r4", rating=1)]
    job5 = completed_job(5, [4, 3, 3, 3, 5], [4, 3, 3, 3, 5])  # no deadline, rq 0.625
    return job1 + job2 + job3 + job4 + job5


def _h(hours: float) -> Any:
    from tests.ledger.factory import at

    return at(hours)


def _alice(document: dict[str, Any], login: str = "alice") -> dict[str, Any]:
    entry: dict[str, Any] = document["repos"]["o/r"]["authors"][login]
    return entry


def _value_n(component: dict[str, Any]) -> dict[str, Any]:
    return {"value": component["value"], "n": component["n"]}


def test_every_component_by_hand() -> None:
    alice = _alice(compute_reputation(_alice_ledger(), DEFAULT))
    components = alice["components"]
    assert _value_n(components["completion_rate"]) == {"value": 0.75, "n": 4}
    assert _value_n(components["timeliness_score"]) == {"value": 0.5, "n": 2}
    assert _value_n(components["dispute_penalty"]) == {
        "value": pytest.approx(2 / 3, abs=1e-6),
        "n": 3,
    }
    rating = (1.0 * 4 / 4 + 0.75 * 1 / 4) / 1.75
    assert _value_n(components["rating_score"]) == {
        "value": pytest.approx(rating, abs=1e-6),
        "n": 2,
    }
    assert _value_n(components["rubric_quality"]) == {"value": pytest.approx(0.6725), "n": 2}
    expected = 0.27 * 0.75 + 0.2 * 0.5 + 0.2 * 2 / 3 + 0.13 * rating + 0.2 * 0.6725
    assert alice["reputation"] == pytest.approx(expected, abs=1e-6)
    assert alice["coverage"] == 1.0
    assert alice["coverage_share"] == 1.0
    assert alice["jobs"] == {"open": 1, "completed": 3, "abandoned": 1}


def test_missing_components_are_left_out_and_weights_renormalized() -> None:
    events = [
        event("first_submission", 1, 0, "o", author="bob"),
        event("abandoned", 1, 1, "x", author="bob"),
    ]
    events += completed_job(2, [4, 4, 4, 4, 4], [5, 5, 5, 5, 5], author="bob")
    bob = _alice(compute_reputation(events, DEFAULT), "bob")
    # completion 0.5, dispute 1.0, rubric_quality 0.7·0.75 + 0.3 = 0.825; no timeliness, no rating
    assert _value_n(bob["components"]["timeliness_score"]) == {"value": None, "n": 0}
    assert _value_n(bob["components"]["rating_score"]) == {"value": None, "n": 0}
    assert bob["coverage"] == pytest.approx(0.67)
    assert bob["coverage_share"] == pytest.approx(0.67)
    assert bob["reputation"] == pytest.approx(
        (0.27 * 0.5 + 0.2 * 1.0 + 0.2 * 0.825) / 0.67, abs=1e-6
    )


def test_an_author_with_only_open_jobs_has_no_reputation() -> None:
    carol = _alice(
        compute_reputation([event("first_submission", 1, 0, "o", author="carol")], DEFAULT), "carol"
    )
    assert carol["reputation"] is None
    assert carol["coverage"] == 0.0
    assert carol["coverage_share"] == 0.0


def test_coverage_is_the_sum_of_the_present_weights_as_configured() -> None:
    weights = ReputationWeights(
        completion_rate=1, timeliness_score=1, dispute_penalty=1, rating_score=1, rubric_quality=1
    )
    events = [
        event("first_submission", 2, 0, "o"),
        scored("final_approval", 2, 1, "c", [5, 5, 5, 5, 5], gate="passed"),
    ]
    dana = _alice(compute_reputation(events, ReputationConfig(weights=weights)))
    # completion_rate and dispute_penalty have data: 1 + 1 of a total weight of 5
    assert dana["coverage"] == 2.0
    assert dana["coverage_share"] == pytest.approx(0.4)
    assert dana["reputation"] == 1.0


def test_a_rater_rating_many_times_counts_once() -> None:
    events = completed_job(1, [4, 4, 4, 4, 4], [5, 5, 5, 5, 5])
    events += [event("rated", 1, 20 + n, f"s{n}", rating=5, actor="sock") for n in range(10)]
    events.append(event("rated", 1, 40, "honest", rating=1, actor="judy"))
    rating = _alice(compute_reputation(events, DEFAULT))["components"]["rating_score"]
    assert _value_n(rating) == {"value": 0.5, "n": 2}


def test_configured_weights_trust_and_sla() -> None:
    config = ReputationConfig(
        weights=ReputationWeights(
            completion_rate=0,
            timeliness_score=1,
            dispute_penalty=0,
            rating_score=1,
            rubric_quality=0,
        ),
        trust=TrustWeights(write=0.0),
        sla_hours=15,
    )
    alice = _alice(compute_reputation(_alice_ledger(), config))
    # job 5 now has a deadline (opened + 15 h) and merged at 10 h: on time
    assert _value_n(alice["components"]["timeliness_score"]) == {
        "value": pytest.approx(2 / 3, abs=1e-6),
        "n": 3,
    }
    # the writer's rating weighs nothing: only the maintainer's 5 remains
    assert alice["components"]["rating_score"]["value"] == 1.0
    assert alice["reputation"] == pytest.approx((2 / 3 + 1.0) / 2, abs=1e-6)
    # timeliness and rating have data: Σ of their weights, and all of the total weight
    assert alice["coverage"] == 2.0
    assert alice["coverage_share"] == 1.0


def test_document_header_and_generation_time() -> None:
    document = compute_reputation(_alice_ledger(), DEFAULT, corrupt=2)
    assert document["schema_version"] == 1
    assert document["generated_at"] == "2024-03-02T18:00:00Z"
    assert document["ledger"] == {"events": 14, "jobs": 5, "corrupt_lines": 2, "duplicate_lines": 0}
    assert document["config"]["weights"]["completion_rate"] == 0.27
    assert _value_n(document["repos"]["o/r"]["rubric_quality"]) == {"value": 0.6725, "n": 2}


def test_reputation_is_per_repo() -> None:
    events = completed_job(1, [5, 5, 5, 5, 5], [5, 5, 5, 5, 5])
    events += completed_job(1, [1, 1, 1, 1, 1], [1, 1, 1, 1, 1], repo="x/y")
    repos = compute_reputation(events, DEFAULT)["repos"]
    assert repos["o/r"]["authors"]["alice"]["components"]["rubric_quality"]["value"] == 1.0
    assert repos["x/y"]["authors"]["alice"]["components"]["rubric_quality"]["value"] == 0.0


KINDS = (
    "first_submission",
    "review_scored",
    "revision_requested",
    "approved",
    "final_approval",
    "abandoned",
    "rated",
    "disputed",
)


@st.composite
def ledgers(draw: st.DrawFn) -> list[Event]:
    """Small random ledgers over a few jobs, authors and times, with colliding times."""
    events = []
    for n in range(draw(st.integers(1, 25))):
        kind = draw(st.sampled_from(KINDS))
        pr = draw(st.integers(1, 4))
        hours = draw(st.integers(0, 6))
        fields: dict[str, Any] = {
            "author": draw(st.sampled_from(["a", "b"])),
            "actor_role": draw(st.sampled_from(["admin", "write", "triage", "none"])),
            "actor": draw(st.sampled_from(["rev", "max"])),
            "version": draw(st.integers(1, 2)),
        }
        if kind == "rated":
            fields["rating"] = draw(st.integers(1, 5))
        if kind == "final_approval":
            fields["deadline"] = _h(draw(st.integers(0, 6)))
        if kind in ("first_submission", "review_scored", "final_approval"):
            values = draw(st.lists(st.one_of(st.none(), st.integers(1, 5)), min_size=0, max_size=5))
            present = {c: v for c, v in zip(AGORA_IDS, values, strict=False) if v is not None}
            events.append(scored(kind, pr, hours, f"d{n}", present, **fields))
        else:
            events.append(event(kind, pr, hours, f"d{n}", **fields))
    return events


@settings(max_examples=60, deadline=None)
@given(data=st.data(), ledger=ledgers())
def test_any_permutation_gives_the_same_reputation(
    data: st.DataObject, ledger: list[Event]
) -> None:
    shuffled = data.draw(st.permutations(ledger))
    assert compute_reputation(shuffled, DEFAULT) == compute_reputation(ledger, DEFAULT)


def test_entries_made_under_one_config_are_each_a_new_object() -> None:
    """A series makes its points through one `Entries`, which makes each shown component once:
    every point still gets dicts of its own, and a zero keeps its sign."""
    entries = Entries(ReputationConfig())
    parts = {name: Component(0.75, 4) for name in COMPONENTS}
    parts["dispute_penalty"] = Component(0.0, 4)
    jobs = {"open": 0, "completed": 4, "abandoned": 0}
    first, second = entries.entry(parts, jobs), entries.entry(parts, dict(jobs))
    assert first == second
    first["components"]["rating_score"]["interval"][0] = -1.0
    first["components"]["completion_rate"]["value"] = None
    assert second["components"]["rating_score"]["interval"][0] != -1.0
    assert second["components"]["completion_rate"]["value"] == 0.75
    negative = entries.entry({**parts, "dispute_penalty": Component(-0.0, 4)}, jobs)
    assert str(negative["components"]["dispute_penalty"]["value"]) == "-0.0"
