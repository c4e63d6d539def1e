"""An append draws again only the reputation.json entries of the authors whose totals moved:
every other author keeps the tip's entry, as it is when no mean moved, else with only its
`ranked` values pulled toward the new means; the file is a full fold's, byte for byte."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any

import pytest

from rubricate.ledger import plan
from rubricate.ledger.derive import reputation_file
from rubricate.ledger.event import Event
from rubricate.ledger.reputation import Entries
from rubricate.ledger.reputation_config import ReputationConfig
from tests.ledger.factory import completed_job, event
from tests.ledger.memory_branch import apply_events as _apply
from tests.ledger.memory_branch import derived_only as _derived
from tests.ledger.memory_branch import full_derive as _full

AUTHORS = 12


def _seeded() -> dict[str, bytes]:
    tree: dict[str, bytes] = {}
    for pr in range(1, 3 * AUTHORS + 1):
        ratings = [1 + pr % 5] * 5
        _apply(tree, completed_job(pr, ratings, [5] * 5, pr, author=f"a{pr % AUTHORS}"))
    return tree


def _drawn(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the entries drawn from their components (not kept from the tip)."""
    drawn: list[int] = []
    entry = Entries.entry

    def counted(self: Entries, *args: object, **kwargs: object) -> object:
        drawn.append(1)
        return entry(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Entries, "entry", counted)
    return drawn


def _append_one(monkeypatch: pytest.MonkeyPatch, added: Event) -> tuple[Any, Any]:
    """The repository's entry before and after appending `added` by a3 (whose entry alone is
    drawn from its components), which equals a full fold."""
    tree = _seeded()
    before = json.loads(tree["reputation.json"])["repos"]["o/r"]
    drawn = _drawn(monkeypatch)
    assert _apply(tree, [added]).incremental
    assert len(drawn) == 1
    assert _derived(tree) == _full(tree)
    return before, json.loads(tree["reputation.json"])["repos"]["o/r"]


def test_an_append_that_moves_no_mean_keeps_every_other_entry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    added = event("first_submission", 900, 90, "s900", author="a3")  # an open job: no mean moves
    before, after = _append_one(monkeypatch, added)
    assert after["means"] == before["means"]
    assert {a: e for a, e in after["authors"].items() if a != "a3"} == {
        a: e for a, e in before["authors"].items() if a != "a3"
    }


def test_the_kept_entries_are_written_as_the_tips_text(monkeypatch: pytest.MonkeyPatch) -> None:
    tree = _seeded()
    given: list[int] = []

    def written(document: dict[str, Any], known: Mapping[int, str] | None = None) -> bytes:
        given.append(len(known or {}))
        return reputation_file(document, known)

    monkeypatch.setattr(plan, "reputation_file", written)
    _apply(tree, [event("first_submission", 900, 90, "s900", author="a3")])
    assert given == [AUTHORS - 1]
    _apply(tree, [event("abandoned", 901, 91, "x901", author="a4")])
    assert given == [AUTHORS - 1, 0]  # a mean moved: every entry's `ranked` is written again
    assert _derived(tree) == _full(tree)


def test_an_append_that_moves_a_mean_pulls_every_other_entry_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before, after = _append_one(monkeypatch, event("abandoned", 900, 95, "x900", author="a3"))
    assert after["means"]["completion_rate"] != before["means"]["completion_rate"]
    moved = [a for a in after["authors"] if after["authors"][a] != before["authors"][a]]
    assert len(moved) == AUTHORS  # every `ranked` moved with the mean


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_many_appends_by_many_authors_equal_a_full_fold(seed: int) -> None:
    chance = random.Random(seed)
    tree = _seeded()
    config = ReputationConfig.model_validate({"prior_jobs": 3.0, "sla_hours": 40.0})
    kinds = ["rated", "disputed", "abandoned", "first_submission", "review_scored"]
    for step in range(40):
        pr = chance.randint(1, 4 * AUTHORS)
        author = f"a{chance.randrange(AUTHORS)}"
        kind = chance.choice(kinds)
        extra = {"rating": chance.randint(1, 5)} if kind == "rated" else {}
        events = [event(kind, pr, 100 + step, f"e{step}", author=author, actor="m", **extra)]
        if step % 5 == 0:
            events = completed_job(pr, [chance.randint(1, 5)] * 5, [4] * 5, step, author=author)
        _apply(tree, events, config if step else None)
        if step == 0:
            config = ReputationConfig()
    assert _derived(tree) == _full(tree, config)
