"""The outbox's collapsing to the latest state, and the greens it drops (pure)."""

from __future__ import annotations

from rubricate.bot.effects import SetStatus
from rubricate.serve.outbox import greens_dropped, latest


def status(state: str, sha: str = "a" * 40, context: str = "rubricate/approval") -> SetStatus:
    return SetStatus(sha=sha, state=state, description=state, context=context)


def test_a_green_under_a_later_state_that_is_not_green_is_named() -> None:
    effects = [status("pending"), status("success"), status("failure")]
    assert latest(effects) == [status("failure")]
    assert greens_dropped(effects) == frozenset({f"rubricate/approval@{'a' * 40}"})


def test_a_green_that_stays_latest_or_another_commit_s_green_is_not() -> None:
    assert greens_dropped([status("failure"), status("success")]) == frozenset()
    other = [status("success", sha="b" * 40), status("pending")]
    assert greens_dropped(other) == frozenset()
    contexts = [status("success", context="rubricate/score"), status("pending")]
    assert greens_dropped(contexts) == frozenset()
