"""Catch-up's planning for open PRs: which heads the ledger never recorded."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from rubricate.bot.catch_up import unseen_heads

FIRST = datetime(2026, 3, 1, tzinfo=timezone.utc)


@dataclass(frozen=True)
class Head:
    number: int
    head_sha: str
    draft: bool = False
    created_at: datetime | None = FIRST + timedelta(days=1)


def test_only_unrecorded_heads_of_ready_prs_opened_since_the_ledger_began() -> None:
    heads = {1: {"a1", "a2"}, 2: {"b1"}}
    listed = [
        Head(5, "e1"),  # never seen, opened after the first event: its opened was lost
        Head(2, "b2"),  # a new head of a known PR
        Head(1, "a2"),  # recorded
        Head(3, "c1", draft=True),  # a draft is never scored
        Head(4, "d1", created_at=FIRST - timedelta(days=1)),  # from before rubricate
        Head(6, "f1", created_at=None),
    ]
    assert [h.number for h in unseen_heads(listed, heads, FIRST)] == [2, 5]
    assert unseen_heads(listed, {}, None) == []  # a repository the ledger holds nothing of
