"""A first report routes each ledger line to its job's group by the job read from the line's
text as rubricate writes it (`cached._job_of`): the last `"pr": N, "repo": ...` of the line,
with only the fields that sort between them in between."""

from __future__ import annotations

import dataclasses
import json

from rubricate.ledger.event import Event
from rubricate.report.cached import _job_of
from tests.ledger.factory import event


def test_only_a_rating_stands_between_a_lines_pr_and_repo() -> None:
    names = sorted(field.name for field in dataclasses.fields(Event))
    assert [name for name in names if "pr" < name < "repo"] == ["rating"]


def test_a_lines_job_is_its_own_not_one_its_text_names() -> None:
    evidence = [{"type": "note", "text": '"pr": 9, "repo": "x/y"'}]
    for made in (
        event("rated", 12, 1, "a", rating=4, repo="o/r-2", evidence=evidence),
        event("disputed", 7, 2, "b", repo="o-2/r.x_y", feedback='"pr": 3, "repo": "z/z"'),
    ):
        found = _job_of(made.to_line())
        assert found is not None
        assert (json.loads(found[2]), int(found[1])) == (made.repo, made.pr)
