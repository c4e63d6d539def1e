"""An author's tally gives, under any reputation config, exactly the totals of their jobs' terms."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from rubricate.ledger.fold import JobFacts
from rubricate.ledger.reputation import Totals, job_terms
from rubricate.ledger.reputation_config import ReputationConfig
from rubricate.ledger.tally import Tally

START = datetime(2025, 1, 1, tzinfo=timezone.utc)
ROLES = ("admin", "maintain", "write", "triage", "read", "none")


@st.composite
def jobs(draw: st.DrawFn) -> JobFacts:
    opened = START + timedelta(microseconds=draw(st.integers(0, 10**13)))
    took = timedelta(microseconds=draw(st.integers(0, 10**12)))
    state = draw(st.sampled_from(("open", "completed", "abandoned")))
    closed = draw(st.one_of(st.none(), st.just(opened + took)))
    deadline = draw(st.one_of(st.none(), st.just(opened + took), st.just(opened + took / 2)))
    ratings = draw(st.lists(st.tuples(st.sampled_from(ROLES), st.integers(1, 5)), max_size=4))
    quality = draw(st.one_of(st.none(), st.floats(0, 1)))
    return JobFacts(
        repo="o/r",
        pr=draw(st.integers(1, 10**6)),
        author="a",
        state=state,
        opened_at=opened,
        closed_at=closed,
        last_at=opened + took,
        deadline=deadline,
        disputed=draw(st.booleans()),
        ratings=tuple(ratings),
        rubric_quality=quality,
        events=draw(st.integers(1, 9)),
    )


configs = st.builds(
    lambda sla, weights: ReputationConfig.model_validate(
        {"sla_hours": sla, "trust": dict(zip(ROLES[:4], weights, strict=False))}
    ),
    st.one_of(st.none(), st.floats(0.001, 10**4), st.sampled_from((1.0, 24.0, 72.5))),
    st.lists(st.floats(0, 3), min_size=4, max_size=4),
)


@given(st.lists(jobs(), max_size=12), configs)
def test_a_tally_gives_the_totals_of_the_jobs_terms(
    found: list[JobFacts], config: ReputationConfig
) -> None:
    expected = Totals.of(job_terms(job, config) for job in found)
    tally = Tally.of(found)
    assert tally.totals(config).row() == expected.row()
    again = Tally.from_json(tally.to_json())
    assert again == tally
    assert again.totals(config).row() == expected.row()
    assert tally.events == sum(job.events for job in found)
    assert tally.newest == max((job.last_at for job in found), default=None)


def test_a_job_that_took_exactly_the_sla_is_on_time() -> None:
    opened = START + timedelta(microseconds=1)
    job = JobFacts(
        "o/r", 1, "a", "completed", opened, opened + timedelta(hours=1.5), opened, None, False,
        (), None, 1,
    )  # fmt: skip
    on_time = ReputationConfig(sla_hours=1.5)
    late = ReputationConfig(sla_hours=1.4999999)
    assert Tally.of([job]).totals(on_time).tallies[1:3] == [1, 1]
    assert Tally.of([job]).totals(late).tallies[1:3] == [1, 0]


@given(st.lists(jobs(), max_size=8), st.lists(jobs(), min_size=1, max_size=8), configs)
def test_taking_jobs_out_again_leaves_the_tally_of_the_rest(
    kept: list[JobFacts], gone: list[JobFacts], config: ReputationConfig
) -> None:
    tally = Tally.of(kept)
    for job in gone:
        tally.add(job)
    assert tally.totals(config).row() == Tally.of(kept + gone).totals(config).row()
    for job in reversed(gone):
        tally.remove(job)
    expected = Tally.of(kept)
    assert tally.totals(config).row() == expected.totals(config).row()
    assert (tally.counts, tally.took, tally.ratings) == (
        expected.counts,
        expected.took,
        expected.ratings,
    )
    assert tally.events == expected.events
