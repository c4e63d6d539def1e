"""The totals a report keeps for the next one (the tally of scores, the totals of the job rows)
stay equal to those counted over every job, whatever sequence of new events comes: a rating, a
corrected score, a job that changes author, an overridden gate, a new job, an abandoned one."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from rubricate.cli.main import main
from rubricate.ledger.backends import DirectoryStore
from rubricate.ledger.event import Event
from rubricate.report.reuse import STATE_PATH
from rubricate.report.summary import RowTotals, summary_of, totals_of
from tests.ledger.factory import event, scored
from tests.report.sample import AUTHORS, sample_events, write_ledger

EPOCH = "1719792000"
JOBS = 30


@pytest.fixture(autouse=True)
def fixed_now(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)


def _new_events(rng: random.Random, round_: int, count: int) -> list[Event]:
    """`count` events of every kind that changes a job's row or scores."""
    made: list[Event] = []
    for n in range(count):
        pr = rng.randint(1, JOBS + 3)
        tag = f"r{round_}n{n}"
        hours = 2000.0 + round_ * 10 + n
        kind = rng.choice(("rating", "corrected", "author", "override", "new job", "abandoned"))
        if kind == "rating":
            made.append(event("rated", pr, hours, tag, rating=rng.randint(1, 5), actor="zed"))
        elif kind == "corrected":  # a later reviewer score on the job's first version
            values = [rng.randint(1, 5) for _ in range(5)]
            made.append(scored("review_scored", pr, hours, tag, values))
        elif kind == "author":  # an earlier event by someone else: the job changes author
            made.append(event("rated", pr, 0.5 + n, tag, rating=3, author=rng.choice(AUTHORS)))
        elif kind == "override":
            final = [rng.randint(1, 5) for _ in range(5)]
            gate = {"gate": "overridden", "override": {"reason": "a known flaky network check"}}
            made.append(scored("final_approval", pr, hours, tag, final, **gate))
        elif kind == "new job":
            pr = 500 + round_ * 10 + n
            first = [rng.randint(1, 5) for _ in range(5)]
            made.append(scored("first_submission", pr, hours, tag + "a", first, source="auto"))
            final = [rng.random() * 4 + 1 for _ in range(5)]  # awkward floats for the sums
            later = hours + 7.123
            made.append(scored("final_approval", pr, later, tag + "b", final, gate="passed"))
        else:
            made.append(event("abandoned", pr, hours, tag))
    return made


def _kept_totals(site: Path) -> dict[str, Any]:
    head = json.loads((site / STATE_PATH).read_text().split("\n", 1)[0])
    return {"tally": _sorted(head["tally"]), "totals": head["totals"]}


def _sorted(tally: dict[str, list[Any]]) -> dict[str, list[Any]]:
    return {name: sorted(rows, key=repr) for name, rows in tally.items()}


@pytest.mark.parametrize("seed", [1, 2])
def test_kept_totals_after_random_appends_equal_a_full_count(tmp_path: Path, seed: int) -> None:
    data = write_ledger(tmp_path / "data", sample_events(JOBS, seed=seed))
    with DirectoryStore(str(data)) as store:
        store.rebuild()
    site = tmp_path / "site"
    source = ["report", "--data", str(data), "--format", "json"]
    assert main([*source, "--out", str(site)]) == 0
    rng = random.Random(seed)
    for round_ in range(4):
        with DirectoryStore(str(data)) as store:
            store.append(_new_events(rng, round_, rng.randint(1, 4)))
        assert main([*source, "--out", str(site)]) == 0
        full = tmp_path / f"full{round_}"
        assert main([*source, "--out", str(full), "--full"]) == 0
        assert (site / "report.json").read_bytes() == (full / "report.json").read_bytes()
        assert _kept_totals(site) == _kept_totals(full)  # the sums bit for bit


def _row(rng: random.Random) -> dict[str, Any]:
    both = rng.random() < 0.7
    first = rng.choice((0.1, 0.2, 0.3, 1 / 3, rng.random())) if both else None
    final = rng.choice((0.7, 0.45, 2 / 3, rng.random())) if both else None
    change = None if first is None or final is None else round(final - first, 6)
    hours = rng.choice((None, 0.5, 3.25, 30.0, rng.random() * 300))
    return {
        "first": first,
        "final": final,
        "change": change,
        "revisions": rng.randint(0, 7),
        "versions": rng.randint(1, 7),
        "hours_to_approval": hours,
    }


def test_totals_taken_away_and_added_again_are_those_counted_afresh() -> None:
    rng = random.Random(5)
    rows = [_row(rng) for _ in range(400)]
    totals = totals_of(rows)
    now = list(rows)
    for _ in range(300):  # rows replaced one by one, in any order
        index = rng.randrange(len(now))
        totals.add(now[index], -1)
        now[index] = _row(rng)
        totals.add(now[index])
    shuffled = rng.sample(now, len(now))
    assert totals == totals_of(shuffled)


def test_means_are_the_exact_mean_rounded_once() -> None:
    # A float sum loses the 1.0 beside 1e16 in either order (mean 0.0); the exact mean is 1/3.
    rows = [
        {"first": v, "final": v, "change": 0.0, "revisions": 0, "versions": 1}
        | {"hours_to_approval": None}
        for v in (1.0, 1e16, -1e16)
    ]
    exact = sum(Fraction(r["first"]) for r in rows) / len(rows)
    assert sum(r["first"] for r in rows) / len(rows) == 0.0
    assert summary_of(totals_of(rows))["mean_first"] == round(float(exact), 6) == 0.333333
    assert summary_of(totals_of(reversed(rows)))["mean_first"] == 0.333333


def test_the_median_of_counted_hours_is_the_middle_one() -> None:
    def median(values: list[float]) -> float | None:
        rows = [
            {"change": None, "revisions": 0, "versions": 1, "hours_to_approval": v} for v in values
        ]
        return summary_of(totals_of(rows))["median_hours_to_approval"]

    assert median([]) is None
    assert median([5.0]) == 5.0
    assert median([9.0, 1.0, 5.0, 5.0]) == 5.0
    assert median([1.0, 2.0, 2.0, 10.0]) == 2.0
    assert median([1.0, 10.0]) == 5.5
    assert median([3.5, 3.5, 3.5]) == 3.5
    assert RowTotals().jobs == 0
