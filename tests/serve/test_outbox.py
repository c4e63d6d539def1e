"""The outbox's collapsing to the latest state, and the states it drops (pure)."""

from __future__ import annotations

from rubricate.bot.effects import SetStatus
from rubricate.serve.outbox import latest, states_dropped


def status(state: str, sha: str = "a" * 40, context: str = "rubricate/approval") -> SetStatus:
    return SetStatus(sha=sha, state=state, description=state, context=context)


def test_a_green_under_a_later_state_that_is_not_green_is_named() -> None:
    effects = [status("pending"), status("success"), status("failure")]
    assert latest(effects) == [status("failure")]
    assert states_dropped(effects) == frozenset({f"rubricate/approval@{'a' * 40}"})


def test_a_lowering_under_a_later_green_is_named() -> None:
    """A retarget's or a dismissal's pending, then the green its core settles on: a publish
    that sent the pending and died leaves GitHub pending under a view state that says green."""
    dropped = states_dropped([status("success"), status("pending"), status("success")])
    assert dropped == frozenset({f"rubricate/approval@{'a' * 40}"})


def test_one_state_or_another_commit_s_or_context_s_is_not() -> None:
    assert states_dropped([status("success"), status("success")]) == frozenset()
    other = [status("success", sha="b" * 40), status("pending")]
    assert states_dropped(other) == frozenset()
    contexts = [status("success", context="rubricate/score"), status("pending")]
    assert states_dropped(contexts) == frozenset()
