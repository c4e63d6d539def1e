"""The reputation series: recomputed as of each completed job, ending at reputation.json."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rubricate.ledger.event import Event, rfc3339
from rubricate.ledger.fold import fold_jobs
from rubricate.ledger.reputation import compute_reputation
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.report.model import reputation_series, since
from tests.ledger.factory import at, event, scored
from tests.report.sample import sample_events

KINDS = ("first", "review", "revise", "final", "abandon", "rate", "dispute")
steps = st.lists(
    st.tuples(
        st.integers(1, 6),  # pr
        st.sampled_from(KINDS),
        st.integers(0, 200),  # hours
        st.integers(1, 5),  # score or rating
        st.sampled_from(("admin", "maintain", "write", "triage", "read")),
    ),
    min_size=1,
    max_size=40,
)


def _events(plan: list[tuple[int, str, int, int, str]]) -> list[Event]:
    out = []
    for n, (pr, kind, hours, value, role) in enumerate(plan):
        author = "alice" if pr % 2 else "bob"
        common = {"author": author, "actor": f"rater{n % 3}", "actor_role": role}
        delivery = f"d{n}"
        if kind == "first":
            out.append(scored("first_submission", pr, hours, delivery, [value] * 5, **common))
        elif kind == "review":
            out.append(scored("review_scored", pr, hours, delivery, [value] * 3, **common))
        elif kind == "final":
            deadline = at(hours + value * 10)
            out.append(
                scored(
                    "final_approval", pr, hours, delivery, [value] * 5, deadline=deadline, **common
                )
            )
        elif kind == "revise":
            out.append(event("revision_requested", pr, hours, delivery, **common))
        elif kind == "abandon":
            out.append(event("abandoned", pr, hours, delivery, **common))
        elif kind == "rate":
            out.append(event("rated", pr, hours, delivery, rating=value, **common))
        else:
            out.append(event("disputed", pr, hours, delivery, **common))
    return out


def _without_ranked(entry: dict[str, Any]) -> dict[str, Any]:
    """An author's entry without `ranked`, which depends on the repository's other authors."""
    components = {
        name: {k: v for k, v in c.items() if k != "ranked"}
        for name, c in entry["components"].items()
    }
    return {**{k: v for k, v in entry.items() if k != "ranked"}, "components": components}


def _assert_last_points_equal_reputation(events: list[Event], config: ReputationConfig) -> None:
    document = compute_reputation(events, config)
    series = reputation_series(events, config)
    expected = {
        (repo, author): entry
        for repo, data in document["repos"].items()
        for author, entry in data["authors"].items()
    }
    assert set(series) == set(expected)
    for key, points in series.items():
        last = {k: v for k, v in points[-1].items() if k not in ("at", "pr")}
        assert last == _without_ranked(expected[key])
        stamps = [p["at"] for p in points]
        assert stamps == sorted(stamps)


@settings(max_examples=200, deadline=None)
@given(steps, st.sampled_from([None, 24.0]))
def test_last_point_of_every_series_equals_reputation_json(
    plan: list[tuple[int, str, int, int, str]], sla: float | None
) -> None:
    config = ReputationConfig.model_validate({"sla_hours": sla})
    _assert_last_points_equal_reputation(_events(plan), config)


def test_sample_ledger_series_end_at_reputation_json() -> None:
    _assert_last_points_equal_reputation(sample_events(60), ReputationConfig())


def test_a_point_per_completed_job_and_the_window_keeps_the_last() -> None:
    events = [
        scored("first_submission", 1, 0, "a", [4] * 5),
        scored("final_approval", 1, 5, "b", [4] * 5),
        scored("first_submission", 2, 10, "c", [2] * 5),
        scored("final_approval", 2, 20, "d", [3] * 5),
        event("rated", 2, 30, "e", rating=5, actor="carol"),
    ]
    points = reputation_series(events, ReputationConfig())[("o/r", "alice")]
    assert [p["pr"] for p in points] == [1, 2, None]
    assert points[0]["components"]["rubric_quality"]["n"] == 1
    assert points[1]["components"]["rubric_quality"]["n"] == 2
    assert points[1]["components"]["rating_score"]["value"] is None
    assert points[2]["components"]["rating_score"]["value"] == 1.0
    assert since(points, at(25)) == [points[-1]]
    assert since(points, None) == points


@settings(max_examples=60, deadline=None)
@given(steps, st.sampled_from([None, 24.0]))
def test_every_point_is_reputation_json_of_the_ledger_up_to_its_time(
    plan: list[tuple[int, str, int, int, str]], sla: float | None
) -> None:
    config = ReputationConfig.model_validate({"sla_hours": sla, "trust": {"write": 0.3}})
    events = _events(plan)
    folded = {k: j.facts for k, j in fold_jobs(events).items()}
    for with_folds in (folded, None):
        for (repo, author), points in reputation_series(events, config, with_folds).items():
            for point in points:
                upto = [e for e in events if rfc3339(e.at) <= point["at"]]
                entry = compute_reputation(upto, config)["repos"][repo]["authors"][author]
                assert {k: v for k, v in point.items() if k not in ("at", "pr")} == _without_ranked(
                    entry
                )


def test_a_point_folds_a_job_as_it_then_was_when_a_later_event_shapes_it() -> None:
    """A rubric recorded as `{id, version}` only: a criterion scored later under it makes the
    job's `fail` incomplete, so a point before that event shows the job as it then was."""
    hand = {"id": "by-hand", "version": "1"}
    fail = {"rubric": hand, "verdict": "fail", "normalized": 0.4, "weighted_total": 2.0}
    events = [
        scored("first_submission", 1, 0, "a", {"x": 2.0}, **fail),
        scored("final_approval", 1, 5, "b", {"x": 2.0}, **fail),
        event("rated", 1, 6, "c", rating=5, actor="carol"),
        event("disputed", 1, 7, "c2", actor="carol"),
        scored("first_submission", 2, 8, "d", [3] * 5),
        scored("final_approval", 2, 9, "e", [3] * 5),
        scored("review_scored", 1, 10, "f", {"y": 1.0}, rubric=hand, verdict="fail"),
        event("rated", 1, 11, "g", rating=1, actor="dave"),
    ]
    config = ReputationConfig()
    folded = {k: j.facts for k, j in fold_jobs(events).items()}
    points = reputation_series(events, config, folded)[("o/r", "alice")]
    assert [p["pr"] for p in points] == [1, 2, None]
    for point in points:
        upto = [e for e in events if rfc3339(e.at) <= point["at"]]
        entry = compute_reputation(upto, config)["repos"]["o/r"]["authors"]["alice"]
        assert {k: v for k, v in point.items() if k not in ("at", "pr")} == _without_ranked(entry)
    assert points[1]["components"]["rubric_quality"]["n"] == 2  # job 1 complete then…
    assert points[2]["components"]["rubric_quality"]["n"] == 1  # …and not once `y` was scored
