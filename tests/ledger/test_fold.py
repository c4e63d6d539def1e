"""The fold: hand-computed scoring moments, rubric_quality and job states."""

from __future__ import annotations

import pytest

from rubricate.ledger.event import CriterionRef, RubricRef, ScaleRef
from rubricate.ledger.fold import fold_job, fold_jobs
from tests.ledger.factory import completed_job, event, scored


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


def test_a_later_null_never_erases_an_earlier_value() -> None:
    review = scored("first_submission", 1, 0, "a", [3, 3, 3, 3, 3])
    auto = scored("first_submission", 1, 1, "b", {"quality": None}, source="auto")
    job = fold_job([review, auto])
    assert job.first is not None
    assert job.first.complete
    assert job.first.scores["quality"] == 3


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
        scale=ScaleRef(min=0, max=100),
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
        scale=ScaleRef(min=0, max=100),
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
    ],
)
def test_job_state(kinds: list[str], state: str) -> None:
    events = [
        scored(k, 1, n, f"d{n}", [3, 3, 3, 3, 3])
        if k in ("first_submission", "final_approval")
        else event(k, 1, n, f"d{n}")
        for n, k in enumerate(kinds)
    ]
    assert fold_job(events).facts.state == state


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
    assert facts.rubric_quality == pytest.approx(0.625)


def test_jobs_are_keyed_by_repo_and_pr_in_order() -> None:
    events = [
        event("first_submission", 2, 0, "a"),
        event("first_submission", 1, 0, "a", repo="z/z"),
    ]
    events.append(event("first_submission", 1, 0, "a"))
    assert list(fold_jobs(events)) == [("o/r", 1), ("o/r", 2), ("z/z", 1)]
