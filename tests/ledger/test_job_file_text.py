"""A job file is written from its members' texts: the bytes are still `json.dumps` of the whole
body (keys sorted, compact), whatever the events hold, and a rubric's text is made once."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings

from rubricate.errors import LedgerError
from rubricate.ledger import derive
from rubricate.ledger.codec import event_from_line
from rubricate.ledger.derive import event_json, job_file
from rubricate.ledger.event import SCHEMA_VERSION, Event
from rubricate.ledger.fold import JobSummary, Moment, fold_job, fold_jobs
from tests.ledger.event_inputs import lines
from tests.ledger.factory import completed_job
from tests.ledger.test_reputation import ledgers


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _moment(moment: Moment | None) -> dict[str, Any] | None:
    if moment is None:
        return None
    return {
        "scores": dict(moment.scores),
        "rubric": None if moment.rubric is None else moment.rubric.model_dump(exclude_none=True),
        "complete": moment.complete,
        "weighted_total": moment.weighted_total,
        "normalized": moment.normalized,
        "events": list(moment.events),
    }


def _expected(job: JobSummary) -> bytes:
    """The job file as one `json.dumps` of its body, as it was written before."""
    facts = job.facts
    body = {
        "schema_version": SCHEMA_VERSION,
        "repo": facts.repo,
        "pr": facts.pr,
        "author": facts.author,
        "state": facts.state,
        "gate": job.gate,
        "first_submission": _moment(job.first),
        "final_approval": _moment(job.final),
        "rubric_quality": facts.rubric_quality,
        "events": [e.model_dump(mode="json", exclude_none=True) for e in job.events],
    }
    return (_dumps(body) + "\n").encode()


def _events() -> list[Event]:
    """Every generated line that reads as an event: each field of a few events set to awkward
    values (text that escapes, nested evidence, big and small numbers, no rubric, ...)."""
    found = []
    for line in lines():
        try:
            found.append(event_from_line(line))
        except LedgerError:
            continue
    return found


def test_each_event_and_its_job_are_written_as_json_dumps_writes_them() -> None:
    events = _events()
    assert len(events) > 1000
    assert any(e.rubric is None for e in events)
    assert any(e.evidence for e in events)
    for event in events:
        assert event_json(event) == _dumps(event.model_dump(mode="json", exclude_none=True))
        job = fold_job([event])
        assert job_file(job) == _expected(job)


def test_evidence_naming_the_rubric_stays_where_it_is() -> None:
    [event] = completed_job(1, [5] * 5, [5] * 5)[:1]
    evidence = [{"rubric": {"id": "not this one"}, "repo": "o/r", "schema_version": 1}]
    odd = event.model_copy(update={"evidence": evidence, "feedback": '"rubric":null,'})
    assert event_json(odd) == _dumps(odd.model_dump(mode="json", exclude_none=True))


@settings(max_examples=80, deadline=None)
@given(ledger=ledgers())
def test_a_job_file_is_json_dumps_of_its_body(ledger: list[Event]) -> None:
    for job in fold_jobs(ledger).values():
        assert job_file(job) == _expected(job)


def test_a_rubric_is_written_once_for_all_the_events_sharing_it() -> None:
    job = fold_job(completed_job(1, [5, 4, 3, 2, 1], [5, 5, 5, 5, 5]))
    rubrics = {id(e.rubric) for e in job.events if e.rubric is not None}
    derive._rubric_texts.clear()
    job_file(job)
    assert {id(r) for r, _ in derive._rubric_texts.values()} == rubrics
    job_file(job)  # written again from the texts kept
    assert job_file(job) == _expected(job)
