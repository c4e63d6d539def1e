"""The bot's job state and the ledger fold agree on which events make up FIRST_SUBMISSION."""

from __future__ import annotations

from rubricate.bot.jobstate import job_state
from rubricate.ledger.fold import fold_job
from tests.ledger.factory import scored


def test_only_version_1_first_submissions_merge_in_the_bot_as_in_the_fold() -> None:
    events = [
        scored("first_submission", 7, 0, "pr:1", {"quality": 3}),
        scored("first_submission", 7, 1, "pr:2", {"quality": 5, "completeness": 4}, version=2),
        scored("first_submission", 7, 2, "c:3", {"completeness": 2}),
    ]
    folded = fold_job(events).first
    assert folded is not None
    assert job_state(events, "o/r", 7).first_submission == {"quality": 3, "completeness": 2}
    assert dict(folded.scores) == {"quality": 3, "completeness": 2}
