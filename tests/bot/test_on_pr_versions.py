"""Which version a head lands in: a return to an older change gets that version's own gate, a
late head event changes nothing, and automatic events leave unscored criteria out."""

from __future__ import annotations

from rubricate.bot.effects import AppendEvents, Log, SetStatus

from .conftest import (
    AGORA_PASS,
    Harness,
    kinds,
    of_type,
)

A, B, C = "a" * 40, "b" * 40, "c" * 40
TREE1, TREE2 = "1" * 40, "2" * 40
PASS = "/approve " + " ".join(f"{k}={v}" for k, v in AGORA_PASS.items())
LOW = "/approve " + " ".join(f"{k}=2" for k in AGORA_PASS)


def statuses(effects: list[object]) -> list[tuple[str, str]]:
    return [(s.sha, s.state) for s in of_type(effects, SetStatus)]  # type: ignore[arg-type]


def test_force_push_back_to_a_failing_version_is_not_green(bot: Harness) -> None:
    bot.open(A, TREE1)
    bot.say(LOW, comment_id=1, at="2024-03-01T11:00:00Z")
    bot.push(B, TREE2, at="2024-03-02T10:00:00Z")
    bot.say(PASS, comment_id=2, at="2024-03-02T11:00:00Z")
    effects = bot.push(A, TREE1, at="2024-03-03T10:00:00Z")
    assert statuses(effects) == [(A, "failure")]
    assert kinds(effects) == ["review_scored"]
    assert bot.job.current_version == 1
    assert bot.job.current is not None
    assert bot.job.current.since.day == 3
    final = of_type(bot.close(merged=True, head=A), AppendEvents)[0].events[0]
    assert (final.version, final.gate, final.verdict) == (1, "bypassed", "fail")


def test_force_push_back_to_an_unapproved_version_is_pending(bot: Harness) -> None:
    bot.open(A, TREE1)
    bot.push(B, TREE2, at="2024-03-02T10:00:00Z")
    bot.say(PASS, comment_id=2, at="2024-03-02T11:00:00Z")
    assert statuses(bot.effects) == [(B, "success")]
    effects = bot.push(A, TREE1, at="2024-03-03T10:00:00Z")
    assert statuses(effects) == [(A, "pending")]
    assert "v1" in of_type(effects, SetStatus)[0].description


def test_a_new_head_with_an_older_tree_gets_that_versions_own_gate(bot: Harness) -> None:
    bot.open(A, TREE1)
    bot.say(PASS, comment_id=1, at="2024-03-01T11:00:00Z")
    bot.push(B, TREE2, at="2024-03-02T10:00:00Z")
    effects = bot.push(C, TREE1, at="2024-03-03T10:00:00Z")
    assert statuses(effects) == [(C, "success")], "the approved tree is back: its approval stands"
    assert bot.job.current is not None
    assert (bot.job.current.number, bot.job.current.heads) == (1, (A, C))
    final = of_type(bot.close(merged=True, head=C), AppendEvents)[0].events[0]
    assert (final.version, final.gate) == (1, "passed")


def test_going_back_and_forth_records_each_return_once(bot: Harness) -> None:
    bot.open(A, TREE1)
    bot.push(B, TREE2, at="2024-03-02T10:00:00Z")
    bot.push(A, TREE1, at="2024-03-03T10:00:00Z")
    again = bot.push(A, TREE1, at="2024-03-03T10:00:00Z")
    assert not of_type(again, AppendEvents), "a replayed return records nothing"
    bot.push(B, TREE2, at="2024-03-04T10:00:00Z")
    assert bot.job.current_version == 2
    assert [v.number for v in bot.job.versions] == [1, 2]
    assert len(bot.ledger) == 4


def test_an_opened_event_handled_after_the_push_is_ignored(bot: Harness) -> None:
    bot.push(B, TREE2, at="2024-03-02T10:00:00Z")
    effects = bot.open(A, TREE1, at="2024-03-01T10:00:00Z")
    assert not of_type(effects, AppendEvents)
    assert not statuses(effects)
    assert any("older than the latest head event" in e.message for e in of_type(effects, Log))
    assert bot.job.current is not None
    assert bot.job.current.head_sha == B


def test_a_late_rebase_event_does_not_move_the_head_back(bot: Harness) -> None:
    bot.open(A, TREE1)
    bot.push(C, TREE1, at="2024-03-02T12:00:00Z")
    effects = bot.push(B, TREE1, at="2024-03-02T11:00:00Z")
    assert not of_type(effects, AppendEvents)
    assert bot.job.current is not None
    assert bot.job.current.head_sha == C


def test_a_rerun_of_the_opened_event_after_close_does_not_reopen(bot: Harness) -> None:
    bot.open(A, TREE1)
    bot.close(merged=False, head=A, at="2024-03-05T12:00:00Z")
    effects = bot.open(A, TREE1, at="2024-03-01T10:00:00Z")
    assert not of_type(effects, AppendEvents)
    assert bot.job.abandoned


def test_automatic_events_leave_unscored_criteria_out(bot: Harness) -> None:
    bot.open(A, TREE1, scores={"spec_adherence": 3})
    (first,) = bot.ledger
    assert first.scores == {"spec_adherence": 3}
    bot.push(B, TREE2, at="2024-03-02T10:00:00Z", scores={})
    assert bot.ledger[-1].scores == {}
