"""A job's row in the report (`rubricate.report.scores.job_row`)."""

from __future__ import annotations

from rubricate.ledger.fold import fold_jobs
from rubricate.report.scores import job_row
from tests.ledger.factory import event, scored


def test_a_dismissed_review_is_not_a_revision_the_author_was_asked_for() -> None:
    """A review's dismissal is recorded as a `revision_requested` (it withdraws an approval);
    only a reviewer's `/revise` counts in the row's revisions."""
    events = [
        scored("first_submission", 1, 0, "pr:opened:a", [3, 3, 3, 3, 3]),
        event("revision_requested", 1, 1, "comment:5#0", feedback="please add tests"),
        scored("approved", 1, 2, "review:9#0", [4, 4, 4, 4, 4]),
        event("revision_requested", 1, 3, "review:9#dismissed", feedback="dismissed"),
    ]
    [job] = fold_jobs(events).values()
    assert job_row(job)["revisions"] == 1
