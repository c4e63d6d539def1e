"""Catch-up planning: ledger events for closed PRs the ledger misses (pure: data in, events out).

A scheduled run lists the repository's recently closed PRs and compares them with the ledger, so
that a cancelled or failed run delays data instead of losing it. The rules:

- A merged PR without a `final_approval` gets one, at `merged_at`, for the version its merged
  head belongs to, placed as the bot places it (`rubricate.bot.placement.merge_choice`, the one
  rule for a merge). Catch-up reads no tree, so a merged head that no run recorded lands in a new
  version that no one approved, and so does one recorded only before the PR's latest retarget
  (`JobState.under_base`). The gate is `passed` when that version's approval passes,
  `overridden` when that approval was overridden, and `bypassed` otherwise (no approval, or a
  failing one). It carries the approval's scores, else the version's reviewer scores, else its
  automatic scores, with the recorded rubric.
- A PR closed without merge that the ledger knows, and that has no `abandoned` or
  `final_approval`, gets `abandoned` at `closed_at`. A closed PR the ledger never saw is left
  alone: it was a draft, or its author never submitted it for scoring.
- PRs closed before the ledger's first event are left alone: rubricate was not installed yet.
- An event keeps its version's tree and change (`tree_sha`, `change_id`) only when the closed
  PR's head is one of that version's heads; otherwise the head alone is recorded.
- The deadline of a merged PR is `rubricate.ledger.deadline` of its milestone, its linked
  issue's (resolved by the caller) and its creation.

An open PR whose head the ledger never recorded (`unseen_heads`) is not planned here: the shell
runs the bot again for that head, as the lost delivery would have.

Each event's id is `natural_key(kind, repo, pr, version, "catch-up")`, so a second catch-up
writes nothing new, and a PR that the normal run already recorded is never planned again.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, TypeVar

from rubricate.bot.binding import Bound
from rubricate.bot.jobstate import JobState, job_state
from rubricate.bot.placement import merge_choice
from rubricate.bot.record import Stamp, new_event
from rubricate.bot.standing import FinalChoice
from rubricate.ledger.deadline import deadline
from rubricate.ledger.event import Event, Gate, Override, RubricRef
from rubricate.rubric.model import ScoreValue

DELIVERY = "catch-up"
ACTOR = "rubricate-catch-up"
_SCORING_KINDS = ("approved", "review_scored", "first_submission")
_NOTE = "recorded by catch-up: the run for this {what} did not record it"


class ClosedPull(Protocol):
    """What catch-up needs of a closed PR (the GitHub adapter's `PullSummary` has it)."""

    @property
    def number(self) -> int: ...
    @property
    def author(self) -> str: ...
    @property
    def head_sha(self) -> str: ...
    @property
    def created_at(self) -> datetime | None: ...
    @property
    def closed_at(self) -> datetime | None: ...
    @property
    def merged_at(self) -> datetime | None: ...
    @property
    def milestone_due_on(self) -> datetime | None: ...


P = TypeVar("P", bound=ClosedPull)


class OpenPullHead(Protocol):
    """What catch-up needs of an open PR (the GitHub adapter's `OpenPull` has it)."""

    @property
    def number(self) -> int: ...
    @property
    def head_sha(self) -> str: ...
    @property
    def draft(self) -> bool: ...
    @property
    def created_at(self) -> datetime | None: ...


H = TypeVar("H", bound=OpenPullHead)


@dataclass(frozen=True)
class FinalScores:
    """The scores a catch-up `final_approval` records, and where they came from."""

    gate: Gate
    scores: Mapping[str, ScoreValue] | None = None
    rubric: RubricRef | None = None
    weighted_total: float | None = None
    normalized: float | None = None
    verdict: str | None = None
    source: str | None = None
    override_reason: str | None = None


def pulls_to_record(
    closed_pulls: Iterable[P], events: Sequence[Event], *, repo: str, since: datetime
) -> list[P]:
    """The closed PRs, oldest closure first, that need a catch-up event."""
    by_pr = _events_by_pr(events, repo)
    if not by_pr:
        return []
    floor = max(since, min(e.at for job in by_pr.values() for e in job))
    wanted = [
        pull
        for pull in closed_pulls
        if _closed_after(pull, floor) and _missing_terminal(pull, by_pr.get(pull.number, ()))
    ]
    return sorted(wanted, key=lambda pull: (pull.merged_at or pull.closed_at, pull.number))


def unseen_heads(
    open_pulls: Iterable[H], heads: Mapping[int, Collection[str]], first: datetime | None
) -> list[H]:
    """The open PRs, lowest number first, whose head the ledger never recorded (`heads`: the
    heads it recorded for each PR it holds; `first`: the time of its first event in the
    repository). The run for that head is to be made again (`pull_request synchronize` when the
    ledger knows the PR, `opened` when it does not). Drafts are left alone, and so are PRs the
    ledger never saw that were opened before its first event (rubricate was not installed yet)."""
    if first is None:
        return []
    found = []
    for pull in open_pulls:
        seen = heads.get(pull.number)
        if pull.draft:
            continue
        if seen is None:
            if pull.created_at is not None and pull.created_at >= first:
                found.append(pull)
        elif pull.head_sha not in seen:
            found.append(pull)
    return sorted(found, key=lambda pull: pull.number)


def plan_catch_up(
    closed_pulls: Iterable[ClosedPull],
    events: Sequence[Event],
    *,
    repo: str,
    since: datetime,
    sla_hours: float | None = None,
    linked_due_on: Mapping[int, datetime] | None = None,
) -> list[Event]:
    """The `final_approval` and `abandoned` events missing from the ledger."""
    by_pr = _events_by_pr(events, repo)
    planned: list[Event] = []
    for pull in pulls_to_record(closed_pulls, events, repo=repo, since=since):
        job = job_state(by_pr.get(pull.number, ()), repo, pull.number)
        if pull.merged_at is not None:
            linked = (linked_due_on or {}).get(pull.number)
            due = deadline(pull.milestone_due_on, linked, pull.created_at, sla_hours)
            version, choice = merge_choice(job, pull.head_sha, Bound())
            stamp = _stamp(pull, job, repo=repo, at=pull.merged_at, version=version)
            final = final_scores(job, version, choice)
            planned.append(final_approval_event(stamp, final, deadline=due))
        elif pull.closed_at is not None:
            version = max(job.current_version, 1)
            stamp = _stamp(pull, job, repo=repo, at=pull.closed_at, version=version)
            planned.append(abandoned_event(stamp))
    return planned


def final_approval_event(stamp: Stamp, final: FinalScores, *, deadline: datetime | None) -> Event:
    """The `final_approval` of a merged PR with the gate and scores the ledger supports."""
    return new_event(
        "final_approval",
        stamp,
        gate=final.gate,
        deadline=deadline,
        scores=dict(final.scores) if final.scores is not None else None,
        rubric=final.rubric,
        weighted_total=final.weighted_total,
        normalized=final.normalized,
        verdict=final.verdict,
        source=final.source,
        override=Override(reason=final.override_reason) if final.override_reason else None,
        feedback=_NOTE.format(what="merge"),
    )


def abandoned_event(stamp: Stamp) -> Event:
    """The `abandoned` event of a PR closed without merge."""
    return new_event("abandoned", stamp, feedback=_NOTE.format(what="close"))


def final_scores(job: JobState, version: int, choice: FinalChoice) -> FinalScores:
    """The gate and scores of the merge of `version` (`merge_choice`), with the rubric recorded."""
    if choice.scores is None:
        return FinalScores(gate=choice.gate)
    return FinalScores(
        gate=choice.gate,
        scores=choice.scores,
        rubric=_recorded_rubric(job, version),
        weighted_total=choice.weighted_total,
        normalized=choice.normalized,
        verdict=choice.verdict,
        source=choice.source,
        override_reason=choice.override_reason,
    )


def _stamp(pull: ClosedPull, job: JobState, *, repo: str, at: datetime, version: int) -> Stamp:
    held = job.version(version)
    same_head = held is not None and pull.head_sha in held.heads
    return Stamp(
        repo=repo,
        pr=pull.number,
        author=pull.author or job.author or "",
        version=version,
        head_sha=pull.head_sha or None,
        tree_sha=held.tree_sha if same_head and held is not None else None,
        at=at,
        actor=ACTOR,
        actor_role="bot",
        delivery=DELIVERY,
        change_id=held.change_id if same_head and held is not None else None,
    )


def _recorded_rubric(job: JobState, version: int) -> RubricRef | None:
    """The rubric recorded with the newest scoring event of the version (else of any version)."""
    scoring = [e for e in job.events if e.kind in _SCORING_KINDS and e.rubric is not None]
    same_version = [e for e in scoring if e.version == version]
    chosen = same_version or scoring
    return chosen[-1].rubric if chosen else None


def _missing_terminal(pull: ClosedPull, events: Sequence[Event]) -> bool:
    kinds = {e.kind for e in events}
    if pull.merged_at is not None:
        return "final_approval" not in kinds
    return bool(events) and not kinds & {"final_approval", "abandoned"}


def _closed_after(pull: ClosedPull, floor: datetime) -> bool:
    closed = pull.merged_at or pull.closed_at
    return closed is not None and closed >= floor


def _events_by_pr(events: Iterable[Event], repo: str) -> dict[int, list[Event]]:
    grouped: dict[int, list[Event]] = {}
    for event in events:
        if event.repo == repo:
            grouped.setdefault(event.pr, []).append(event)
    return grouped
