"""The fold: hand-computed scoring moments, rubric_quality and job states."""

from __future__ import annotations

import pytest

from rubricate.ledger.event import CriterionRef, RubricRef, ScaleRef
from rubricate.ledger.fold import facts_so_far, fold_job, fold_jobs, shapes_facts
from tests.ledger.factory import at, completed_job, event, scored


def test_reviewer_v1_score_overrides_the_automatic_one_criterion_by_criterion() -> None:
    auto = scored("first_submission", 1, 0, "pr:opened", [2, 2, 2, 2, 2], source="auto")
    review = scored("first_submission", 1, 1, "c:1#0", {"quality": 4, "spec_adherence": 5})
    final = scored("final_approval", 1, 5, "pr:closed", [5, 5, 5, 5, 5], gate="passed")
    job = fold_job([final, review, auto])
    assert job.first is not None
    assert dict(job.first.scores) == {
        "spec_adherence": 5,
        "completeness": 2,
        "quality": 4,
        "verifiability": 2,
        "format_correctness": 2,
    }
    # 0.3·5 + 0.2·2 + 0.25·4 + 0.15·2 + 0.1·2 = 3.4 → (3.4 − 1) / 4 = 0.6
    assert job.first.weighted_total == pytest.approx(3.4)
    assert job.first.normalized == pytest.approx(0.6)
    assert job.first.events == (auto.id, review.id)
    # 0.7·0.6 + 0.3·1.0
    assert job.facts.rubric_quality == pytest.approx(0.72)


def test_an_incomplete_first_submission_is_left_out_of_rubric_quality() -> None:
    auto = scored("first_submission", 1, 0, "pr:opened", [4, 4, 4], source="auto")
    final = scored("final_approval", 1, 5, "pr:closed", [5, 5, 5, 5, 5])
    job = fold_job([auto, final])
    assert job.first is not None
    assert not job.first.complete
    assert job.final is not None
    assert job.final.complete
    assert job.facts.rubric_quality is None
    assert job.facts.state == "completed"


NULLABLE = RubricRef(
    id="r",
    version="1",
    scale=ScaleRef(min=0, max=10),
    criteria={"a": CriterionRef(weight=1), "b": CriterionRef(weight=1, nullable=True)},
)


def test_a_later_explicit_null_replaces_an_earlier_value() -> None:
    auto = scored("first_submission", 1, 0, "a", {"a": 10, "b": 0}, rubric=NULLABLE, source="auto")
    review = scored("first_submission", 1, 1, "b", {"b": None}, rubric=NULLABLE)
    final = scored("final_approval", 1, 2, "c", {"a": 10, "b": None}, rubric=NULLABLE)
    job = fold_job([final, review, auto])
    assert job.first is not None
    assert dict(job.first.scores) == {"a": 10, "b": None}
    assert job.first.complete
    assert job.first.normalized == 1.0
    assert job.facts.rubric_quality == pytest.approx(1.0)


def test_an_absent_criterion_keeps_the_earlier_value() -> None:
    review = scored("first_submission", 1, 0, "a", [3, 3, 3, 3, 3])
    auto = scored("first_submission", 1, 1, "b", {"quality": 5}, source="auto")
    job = fold_job([review, auto])
    assert job.first is not None
    assert job.first.complete
    assert dict(job.first.scores) == {**dict.fromkeys(review.scores or {}, 3), "quality": 5}


def test_ties_in_time_are_broken_by_id() -> None:
    one = scored("first_submission", 1, 0, "x", {"quality": 2})
    two = scored("first_submission", 1, 0, "y", {"quality": 4})
    later = max(one, two, key=lambda e: e.id)
    for order in ([one, two], [two, one]):
        merged = fold_job(order).first
        assert merged is not None
        assert merged.scores["quality"] == later.scores["quality"]  # type: ignore[index]


def test_only_version_1_counts_as_first_submission() -> None:
    v1 = scored("first_submission", 1, 0, "a", [2, 2, 2, 2, 2])
    v2 = scored("first_submission", 1, 3, "b", [5, 5, 5, 5, 5], version=2)
    job = fold_job([v1, v2])
    assert job.first is not None
    assert job.first.normalized == pytest.approx(0.25)


def test_nullable_criteria_are_left_out_of_the_total_and_completeness() -> None:
    axes = RubricRef(
        id="axes",
        version="1",
        scale=ScaleRef(min=0, max=100, open=True),
        criteria={"depth": CriterionRef(weight=2), "risk": CriterionRef(weight=1, nullable=True)},
    )
    first = scored("first_submission", 1, 0, "a", {"depth": 80, "risk": None}, rubric=axes)
    final = scored("final_approval", 1, 1, "b", {"depth": 120, "risk": 40}, rubric=axes)
    job = fold_job([first, final])
    assert job.first is not None
    assert job.first.complete
    assert job.first.normalized == pytest.approx(0.8)
    # (2·120 + 1·40) / 3 = 93.33 → 0.9333 (an open scale may pass max; clamped only above 1)
    assert job.final is not None
    assert job.final.normalized == pytest.approx(280 / 3 / 100)
    assert job.facts.rubric_quality == pytest.approx(0.7 * 0.8 + 0.3 * 280 / 300)


def test_open_scale_scores_are_clamped_to_one() -> None:
    axes = RubricRef(
        id="axes",
        version="1",
        scale=ScaleRef(min=0, max=100, open=True),
        criteria={"d": CriterionRef(weight=1)},
    )
    final = scored("final_approval", 1, 1, "b", {"d": 130}, rubric=axes)
    assert fold_job([final]).final is not None
    assert fold_job([final]).final.normalized == 1.0  # type: ignore[union-attr]


def test_binary_answers_map_to_the_scale_ends() -> None:
    checklist = RubricRef(
        id="c",
        version="1",
        scale=ScaleRef(min=0, max=1),
        criteria={"a": CriterionRef(weight=1), "b": CriterionRef(weight=3)},
    )
    final = scored("final_approval", 1, 1, "b", {"a": True, "b": False}, rubric=checklist)
    moment = fold_job([final]).final
    assert moment is not None
    assert moment.normalized == pytest.approx(0.25)


def test_hand_written_events_fall_back_to_their_own_verdict_and_normalized() -> None:
    bare = RubricRef(id="agora-v3", version="3")
    first = scored("first_submission", 1, 0, "a", {}, rubric=bare, verdict="fail", normalized=0.5)
    final = scored("final_approval", 1, 1, "b", {}, rubric=bare, verdict="pass", normalized=1.4)
    job = fold_job([first, final])
    assert job.facts.rubric_quality == pytest.approx(0.7 * 0.5 + 0.3 * 1.0)
    pending = scored(
        "first_submission", 2, 0, "a", {}, rubric=bare, verdict="incomplete", normalized=0.9
    )
    assert fold_job([pending]).first is not None
    assert not fold_job([pending]).first.complete  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("kinds", "state"),
    [
        (["first_submission"], "open"),
        (["first_submission", "abandoned"], "abandoned"),
        (["first_submission", "abandoned", "final_approval"], "completed"),
        (["first_submission", "final_approval", "disputed"], "completed"),
        (["first_submission", "final_approval", "abandoned"], "completed"),
        # reopened: a later lifecycle or scoring event of the job
        (["first_submission", "abandoned", "review_scored"], "open"),
        (["first_submission", "abandoned", "revision_requested"], "open"),
        (["first_submission", "abandoned", "approved"], "open"),
        (["first_submission", "abandoned", "first_submission"], "open"),
        (["first_submission", "abandoned", "review_scored", "abandoned"], "abandoned"),
        # a rating, a dispute or an abandonment again does not reopen it
        (["first_submission", "abandoned", "rated", "disputed"], "abandoned"),
        (["first_submission", "abandoned", "abandoned"], "abandoned"),
    ],
)
def test_job_state(kinds: list[str], state: str) -> None:
    events = [
        scored(k, 1, n, f"d{n}", [3, 3, 3, 3, 3])
        if k in ("first_submission", "final_approval")
        else event(k, 1, n, f"d{n}", **({"rating": 4} if k == "rated" else {}))
        for n, k in enumerate(kinds)
    ]
    assert fold_job(events).facts.state == state
    assert fold_job(reversed(events)).facts.state == state


def test_an_abandonment_at_the_same_time_as_a_reopening_is_ordered_by_id() -> None:
    reopen = scored("review_scored", 1, 5, "r", [3, 3, 3, 3, 3])
    close = event("abandoned", 1, 5, "x")
    expected = "abandoned" if close.id > reopen.id else "open"
    assert fold_job([close, reopen]).facts.state == expected


def test_only_each_raters_latest_rating_counts() -> None:
    events = completed_job(1, [4, 4, 4, 4, 4], [5, 5, 5, 5, 5])
    events += [event("rated", 1, 20 + n, f"r{n}", rating=1, actor="mallory") for n in range(10)]
    events.append(event("rated", 1, 40, "last", rating=4, actor="mallory"))
    events.append(event("rated", 1, 30, "other", rating=5, actor="olivia", actor_role="admin"))
    facts = fold_job(events).facts
    assert facts.ratings == (("admin", 5), ("write", 4))
    # at the same time, the higher id is the later one
    tied = [event("rated", 1, 50, d, rating=r, actor="t") for d, r in (("p", 2), ("q", 3))]
    later = max(tied, key=lambda e: e.id)
    assert fold_job([*reversed(tied), *events]).facts.ratings[-1] == ("write", later.rating)


def test_the_latest_final_approval_wins_and_gives_the_gate() -> None:
    early = scored("final_approval", 1, 1, "a", [2, 2, 2, 2, 2], gate="overridden")
    late = scored("final_approval", 1, 2, "b", [5, 5, 5, 5, 5], gate="passed")
    job = fold_job([late, early])
    assert job.gate == "passed"
    assert job.final is not None
    assert job.final.normalized == 1.0


def test_facts_collect_deadline_disputes_ratings_and_author() -> None:
    events = completed_job(7, [4, 3, 3, 3, 5], [4, 3, 3, 3, 5], author="carol")
    events.append(event("rated", 7, 20, "r", rating=4, actor_role="maintain", author="carol"))
    events.append(event("disputed", 7, 21, "d", author="carol"))
    facts = fold_jobs(events)[("o/r", 7)].facts
    assert facts.author == "carol"
    assert facts.disputed
    assert facts.ratings == (("maintain", 4),)
    assert facts.events == 4
    assert facts.last_at == events[-1].at
    assert facts.rubric_quality == pytest.approx(0.625)


def test_jobs_are_keyed_by_repo_and_pr_in_order() -> None:
    events = [
        event("first_submission", 2, 0, "a"),
        event("first_submission", 1, 0, "a", repo="z/z"),
    ]
    events.append(event("first_submission", 1, 0, "a"))
    assert list(fold_jobs(events)) == [("o/r", 1), ("o/r", 2), ("z/z", 1)]


def test_facts_so_far_are_the_fold_of_every_first_part_that_holds_the_shaping_events() -> None:
    events = [
        event("abandoned", 1, 0, "a0", author="bob"),
        scored("first_submission", 1, 1, "a", [3] * 5),
        event("rated", 1, 2, "b", rating=5, actor="carol"),
        scored("final_approval", 1, 3, "c", [4] * 5, deadline=at(2)),
        event("rated", 1, 4, "d", rating=2, actor="carol"),
        event("disputed", 1, 5, "e", actor="dave"),
        event("rated", 1, 6, "f", rating=4, actor="erin", actor_role="maintain"),
        event("abandoned", 1, 7, "g"),
    ]
    whole = fold_job(events)
    last = max(n for n, e in enumerate(events, start=1) if shapes_facts(e))
    assert last == 4
    for size in range(last, len(events) + 1):
        assert facts_so_far(whole.facts, events[:size]) == fold_job(events[:size]).facts
    before = events[: last - 1]  # without the completion: not so
    assert facts_so_far(whole.facts, before) != fold_job(before).facts
