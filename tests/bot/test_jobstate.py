"""The job-state fold: ordering, duplicates, versions, approvals and first submissions."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone
from typing import Any

from rubricate.bot import jobstate
from rubricate.bot.jobstate import job_state
from rubricate.bot.record import Stamp, new_event
from rubricate.ledger.event import Event, Override

from .conftest import REPO

T0 = datetime(2024, 3, 1, 10, tzinfo=timezone.utc)


def ev(
    kind: str,
    minute: int,
    *,
    version: int = 1,
    delivery: str = "",
    pr: int = 7,
    head: str = "a",
    tree: str = "t1",
    actor: str = "rae",
    **fields: Any,
) -> Event:
    stamp = Stamp(
        REPO,
        pr,
        "agent",
        version,
        head * 40,
        tree,
        T0 + timedelta(minutes=minute),
        actor,
        "write",
        delivery or f"test:{kind}:{minute}",
    )
    return new_event(kind, stamp, **fields)  # type: ignore[arg-type]


def test_duplicates_count_once_and_other_prs_are_skipped() -> None:
    first = ev("first_submission", 0, scores={"a": 1.0}, source="auto")
    other = ev("first_submission", 0, pr=8, scores={"a": 5.0}, source="auto")
    state = job_state([first, first, other], REPO, 7)
    assert len(state.events) == 1
    assert state.first_submission == {"a": 1.0}


def test_events_apply_in_time_order_whatever_the_input_order() -> None:
    early = ev("review_scored", 1, scores={"q": 2.0}, source="reviewer")
    late = ev("review_scored", 2, scores={"q": 4.0}, source="reviewer")
    assert job_state([late, early], REPO, 7).reviewer_scores[1] == {"q": 4.0}


def test_same_time_commands_apply_in_command_order_then_ledger_order() -> None:
    approve = ev(
        "approved", 1, delivery="comment:5#1", scores={"q": 2.0}, verdict="fail", source="reviewer"
    )
    revise = ev("revision_requested", 1, delivery="comment:5#0", feedback="fix")
    state = job_state([approve, revise], REPO, 7)
    assert state.approval is not None
    override = ev(
        "approved",
        1,
        delivery="comment:6#0",
        scores={"q": 2.0},
        verdict="fail",
        source="reviewer",
        override=Override(reason="x" * 20),
        actor="mia",
    )
    state = job_state([approve, revise, override], REPO, 7)
    assert state.approval is not None
    assert state.approval.override is not None
    assert (state.approval.actor, state.approval.override.actor) == ("rae", "mia")


def test_versions_collect_heads_of_the_same_tree() -> None:
    events = [
        ev("first_submission", 0, source="auto", scores={}),
        ev("review_scored", 1, head="b", source="auto", scores={}),
        ev("review_scored", 2, version=2, head="c", tree="t2", source="auto", scores={}),
    ]
    state = job_state(events, REPO, 7)
    assert [(v.number, v.heads, v.tree_sha) for v in state.versions] == [
        (1, ("a" * 40, "b" * 40), "t1"),
        (2, ("c" * 40,), "t2"),
    ]
    assert state.current_version == 2
    assert state.version_of_head("b" * 40) == state.versions[0]


def test_first_submission_merges_criterion_by_criterion_and_an_explicit_null_replaces() -> None:
    events = [
        ev("first_submission", 0, scores={"a": 1.0, "b": 2.0, "d": 3.0}, source="auto"),
        ev("first_submission", 5, scores={"a": 4.0, "b": None, "c": None}, source="reviewer"),
    ]
    state = job_state(events, REPO, 7)
    assert state.first_submission == {"a": 4.0, "b": None, "c": None, "d": 3.0}
    assert state.first_sources == {"a": "reviewer", "b": "reviewer", "c": "reviewer", "d": "auto"}
    assert state.auto[1].scores == {"a": 1.0, "b": 2.0, "d": 3.0}
    assert state.reviewer_scores == {}


def test_revision_withdraws_the_approval_of_its_version_only() -> None:
    events = [
        ev("approved", 1, scores={"q": 4.0}, verdict="pass", source="reviewer"),
        ev(
            "approved",
            2,
            version=2,
            tree="t2",
            scores={"q": 4.0},
            verdict="pass",
            source="reviewer",
        ),
        ev("revision_requested", 3, version=2, tree="t2", feedback="again"),
    ]
    state = job_state(events, REPO, 7)
    assert set(state.approvals) == {1}
    assert state.approval is None
    assert [f.kind for f in state.feedback] == ["revise"]


def test_terminal_states() -> None:
    abandoned = job_state(
        [ev("first_submission", 0, scores={}, source="auto"), ev("abandoned", 5)], REPO, 7
    )
    assert abandoned.abandoned
    assert not abandoned.merged
    merged = job_state(
        [ev("final_approval", 5, gate="bypassed", scores={}), ev("rated", 6, rating=4)], REPO, 7
    )
    assert merged.merged
    assert not merged.abandoned
    assert merged.feedback[0].rating == 4


def test_handled_matches_whole_delivery_prefixes() -> None:
    state = job_state([ev("revision_requested", 1, delivery="comment:10#0", feedback="x")], REPO, 7)
    assert state.handled("comment:10")
    assert not state.handled("comment:1")
    assert "comment:10#0" in state.handled_deliveries


def test_with_events_keeps_the_sticky_comment_id() -> None:
    state = dataclasses.replace(job_state([], REPO, 7), sticky_comment_id=99)
    after = state.with_events([ev("first_submission", 0, scores={}, source="auto")])
    assert after.sticky_comment_id == 99
    assert after.current_version == 1


def test_a_job_reopened_after_abandoned_is_open_again_as_the_ledger_says() -> None:
    from rubricate.ledger.fold import job_lifecycle

    for later in ("first_submission", "review_scored", "revision_requested", "approved"):
        events = [ev("first_submission", 0, scores={}, source="auto"), ev("abandoned", 5)]
        events.append(ev(later, 9, scores={}, source="auto"))
        assert job_lifecycle(events) == "open"
        assert not job_state(events, REPO, 7).abandoned, later


def test_more_events_fold_onto_the_state_as_a_refold_would() -> None:
    earlier = [
        ev("first_submission", 0, delivery="pr:1", scores={"a": 1.0}, source="auto"),
        ev("review_scored", 1, delivery="comment:3#0", scores={"a": 2.0}, source="reviewer"),
        ev("review_scored", 2, version=2, head="c", tree="t2", delivery="pr:2", source="auto"),
    ]
    later = [
        ev("approved", 3, version=2, delivery="comment:4#0", scores={"a": 3.0}, source="reviewer"),
        ev("revision_requested", 3, version=2, delivery="comment:4#1", feedback="fix"),
    ]
    late_but_earlier = [ev("review_scored", 0, delivery="comment:9#0", scores={"a": 5.0})]
    state = job_state(earlier, REPO, 7)
    for new in (later, late_but_earlier, [earlier[1], *later]):
        assert state.with_events(new) == job_state([*state.events, *new], REPO, 7)


def test_more_events_after_the_state_are_each_folded_once(monkeypatch: Any) -> None:
    applied: list[Event] = []
    apply = jobstate._Folder.apply

    def counted(self: jobstate._Folder, event: Event) -> None:
        applied.append(event)
        apply(self, event)

    state = job_state([ev("first_submission", 0, delivery="pr:1", source="auto")], REPO, 7)
    monkeypatch.setattr(jobstate._Folder, "apply", counted)
    new = ev("approved", 1, delivery="comment:4#0", scores={"a": 3.0}, source="reviewer")
    assert state.with_events([new]).approval is not None
    assert applied == [new]
