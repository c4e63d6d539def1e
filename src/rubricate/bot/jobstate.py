"""A PR job's records and its state, folded from the job's ledger events (pure: events in).

The records are the versions, approvals, overrides, automatic scores and feedback; `JobState`
holds them with the view metadata the shell keeps beside the ledger (the sticky comment id and
the comments already answered). `job_state` folds the events (its docstring gives the rules).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal

from rubricate.bot.binding import Bound
from rubricate.bot.delivery import delivery_group, dismissal
from rubricate.ledger.event import Event, criterion_source
from rubricate.ledger.fold import counts_as_first_submission, job_lifecycle
from rubricate.rubric.model import ScoreValue

Scores = Mapping[str, ScoreValue]
FeedbackKind = Literal["revise", "note", "rate", "dispute"]


@dataclass(frozen=True)
class VersionInfo:
    """One version of the PR: a distinct change, with every head commit seen for it.

    `change_id` digests the PR's own change (merge base to head) bound to the PR's base
    (`rubricate.bot.binding`; older versions hold the diff digest alone, and versions recorded
    before changes were have only their `tree_sha`). `at` is when the version was first recorded;
    `since` when it last became the current version (a head that returns to this change makes
    it current again).
    """

    number: int
    head_sha: str | None
    tree_sha: str | None
    heads: tuple[str, ...]
    at: datetime
    since: datetime
    change_id: str | None = None

    def has(self, head_sha: str, head: Bound) -> bool:
        """True when the head is this version's. When both changes are known, the version holds
        the head's change (bound to its base: `rubricate.bot.binding`; a head commit seen under
        another base is not enough). Else the version holds the head commit, or, neither change
        known (git was off), its tree, as it always did: a version bound to a change is never
        matched by tree alone."""
        if head.change_id is not None and self.change_id is not None:
            return head.holds(self.change_id)
        same_tree = head.tree_sha is not None and self.tree_sha == head.tree_sha
        unknown = head.change_id is None and self.change_id is None
        return head_sha in self.heads or (unknown and same_tree)

    def returns_to(self, head_sha: str, head: Bound) -> bool:
        """True when the head brings this version back once another is current: as `has` says,
        but when both changes are known, only a change bound to this very base does (a version
        recorded before the base was bound says nothing of its base, so it comes back under
        none: the head is a new version, approved again)."""
        if head.change_id is not None and self.change_id is not None:
            return head.on_base(self.change_id)
        return self.has(head_sha, head)


@dataclass(frozen=True)
class OverrideInfo:
    """An override of a failing approval; kept and shown forever."""

    version: int
    reason: str
    actor: str
    at: datetime


@dataclass(frozen=True)
class Approval:
    """A reviewer's approval of a version with its scores, and any override of it.

    `given_in` names the comment or review (`review:<id>`) that recorded it, `override_in` the
    one that overrode it: dismissing the first review takes the approval back, dismissing the
    second only the override (`rubricate.bot.dismissal`)."""

    version: int
    scores: Scores
    weighted_total: float | None
    normalized: float | None
    verdict: str
    actor: str
    at: datetime
    override: OverrideInfo | None = None
    given_in: str = ""
    override_in: str | None = None

    @property
    def rests_on(self) -> frozenset[str]:
        """The comments and reviews whose dismissal takes something of it back."""
        return frozenset({self.given_in, *([self.override_in] if self.override_in else [])})


def approval_of(event: Event) -> Approval:
    """The approval an `approved` event records (without any override)."""
    return Approval(
        version=event.version,
        scores=dict(event.scores or {}),
        weighted_total=event.weighted_total,
        normalized=event.normalized,
        verdict=event.verdict or "incomplete",
        actor=event.actor,
        at=event.at,
        given_in=delivery_group(event.delivery),
    )


@dataclass(frozen=True)
class AutoScore:
    """The automatic (evidence and judge) score of a version, with its evidence entries."""

    version: int
    scores: Scores
    weighted_total: float | None
    verdict: str | None
    source: str
    evidence: tuple[Mapping[str, Any], ...]


@dataclass(frozen=True)
class Feedback:
    """Free text recorded for a job: a revision request, a score note, a rating or a dispute."""

    kind: FeedbackKind
    version: int
    actor: str
    at: datetime
    text: str
    rating: int | None = None


PR_DELIVERY = "pr:"

RETARGET_DELIVERY = "pr:edited:"
"""A retarget's delivery: the bot handles `edited` only when the base changed."""


@dataclass(frozen=True)
class JobState:
    """Everything the handlers and views need to know about one PR job.

    `current_number` is the version of the PR's head; `head_at` the time of the latest
    pull-request event (an older one is stale); `base_since` the first version recorded under
    the PR's current base (the version its latest retarget opened; 0 when it never moved).
    `sticky_comment_id` and `answered` (the `comment:<id>` and `review:<id>` already answered)
    come from the shell's view state.
    """

    repo: str
    pr: int
    author: str | None = None
    events: tuple[Event, ...] = ()
    versions: tuple[VersionInfo, ...] = ()
    reviewer_scores: Mapping[int, Scores] = field(default_factory=dict)
    auto: Mapping[int, AutoScore] = field(default_factory=dict)
    first_submission: Scores = field(default_factory=dict)
    first_sources: Mapping[str, str] = field(default_factory=dict)
    approvals: Mapping[int, Approval] = field(default_factory=dict)
    approval_history: tuple[Approval, ...] = ()
    overrides: tuple[OverrideInfo, ...] = ()
    feedback: tuple[Feedback, ...] = ()
    final: Event | None = None
    abandoned: bool = False
    handled_deliveries: frozenset[str] = frozenset()
    current_number: int = 0
    head_at: datetime | None = None
    base_since: int = 0
    sticky_comment_id: int | None = None
    answered: frozenset[str] = frozenset()

    @property
    def current(self) -> VersionInfo | None:
        """The current version (the PR head's), if any was recorded."""
        return self.version(self.current_number)

    @property
    def current_version(self) -> int:
        """The current version number (0 before any)."""
        return self.current_number

    @property
    def merged(self) -> bool:
        """True once a `final_approval` was recorded."""
        return self.final is not None

    @property
    def approval(self) -> Approval | None:
        """The standing approval of the current version."""
        return self.approvals.get(self.current_version)

    def version(self, number: int) -> VersionInfo | None:
        """The version with this number."""
        return next((v for v in self.versions if v.number == number), None)

    def version_of_head(self, head_sha: str) -> VersionInfo | None:
        """The version a head commit belongs to: the current one when it holds the head (a
        retarget puts the same head in a new version), else the newest that does."""
        current = self.current
        if current is not None and head_sha in current.heads:
            return current
        return next((v for v in reversed(self.versions) if head_sha in v.heads), None)

    def under_base(self, version: VersionInfo) -> bool:
        """Whether a version stands under the PR's current base: the current one, or one
        recorded since the PR's latest retarget (`base_since`)."""
        return version.number >= self.base_since or version.number == self.current_number

    def version_of(self, head_sha: str, head: Bound) -> VersionInfo | None:
        """The version a head with this tree and change is: the current one when it has the head
        (`VersionInfo.has`), else the newest the head brings back (`VersionInfo.returns_to`). A
        head whose change is not known (a merge, catch-up, git off) brings back by its commit or
        tree only a version `under_base`: one recorded before the PR moved was approved, if at
        all, under another base's rules."""
        current = self.current
        if current is not None and current.has(head_sha, head):
            return current
        known = head.change_id is not None  # then `returns_to` binds the change to its base
        return next(
            (
                v
                for v in reversed(self.versions)
                if v.returns_to(head_sha, head) and (known or self.under_base(v))
            ),
            None,
        )

    def handled(self, delivery_prefix: str) -> bool:
        """True when any delivery of this comment or review (`comment:<id>`) was applied."""
        return any(delivery_group(d) == delivery_prefix for d in self.handled_deliveries)

    def with_events(self, events: Iterable[Event]) -> JobState:
        """The state after more events (the view metadata is kept), as `job_state` would fold
        this state's events and then these: the new events are folded onto the state when the
        fold's order puts every one of them after the state's events (a handler's events, the
        usual case), and the whole job is refolded otherwise."""
        ordered = _fold_order([*self.events, *events], self.repo, self.pr)
        kept = len(self.events)
        if all(a is b for a, b in zip(ordered[:kept], self.events, strict=True)):
            folder = _Folder.resume(self)
            remaining = ordered[kept:]
        else:
            folder, remaining = _Folder(self.repo, self.pr), ordered
        for event in remaining:
            folder.apply(event)
        state = folder.state()
        return replace(state, sticky_comment_id=self.sticky_comment_id, answered=self.answered)


def job_state(events: Sequence[Event], repo: str, pr: int) -> JobState:
    """Fold the events of one PR job, given in ledger order (others skipped; ids count once).

    - Events apply in time order; at the same time, the commands of one comment apply as
      written and different deliveries in ledger order.
    - Versions come from the events' `version`, `head_sha`, `tree_sha` and `change_id`; a
      rebase that keeps the PR's own change adds a head to the same version.
    - The current version is the version of the latest pull-request event (delivery `pr:...`),
      so a head that returns to an older tree makes that version current again; without such
      events it is the newest version. The version of the latest retarget (`pr:edited:...`) is
      `base_since`: those before it were recorded under another base.
    - In `scores`, an absent criterion means "no information" and an explicit null "not
      applicable". Reviewer scores are kept per version, merged over every reviewer, and
      FIRST_SUBMISSION merges its events criterion by criterion as the ledger fold does: a
      later value, an explicit null included, replaces an earlier one.
    - Whether the job is abandoned is the ledger's one lifecycle rule
      (`rubricate.ledger.fold.job_lifecycle`): a job reopened after `abandoned` is open again.
    - An `approved` event with `override` marks the approval of its version overridden;
      `revision_requested` withdraws the approval of its version (a `/revise`). A review's
      dismissal (delivery `review:<id>#dismissed`, after every command of that review) withdraws
      only what that review gave: the approval it recorded, or only the override it recorded
      (the failing approval stands again); an approval recorded in another comment or review
      stays, whichever run came first.
    """
    folder = _Folder(repo, pr)
    for event in _fold_order(events, repo, pr):
        folder.apply(event)
    return folder.state()


def _fold_order(events: Sequence[Event], repo: str, pr: int) -> list[Event]:
    """The job's events, each id once, in the order `job_state` applies them."""
    unique = list({e.id: e for e in events if e.repo == repo and e.pr == pr}.values())
    first_seen: dict[str, int] = {}
    for position, event in enumerate(unique):
        first_seen.setdefault(delivery_group(event.delivery), position)

    def order(event: Event) -> tuple[datetime, int, float]:
        group = delivery_group(event.delivery)
        return event.at, first_seen[group], _delivery_index(event.delivery)

    return sorted(unique, key=order)


def _delivery_index(delivery: str | None) -> float:
    """A command's place in its comment (`#3`); a tail that is not an index (a review's
    `#dismissed`) comes after every command of its review."""
    if "#" not in (delivery or ""):
        return 0
    tail = (delivery or "").rpartition("#")[2]
    return int(tail) if tail.isdigit() else math.inf


class _Folder:
    """Mutable accumulator behind `job_state`."""

    def __init__(self, repo: str, pr: int) -> None:
        self.repo, self.pr = repo, pr
        self.author: str | None = None
        self.events: list[Event] = []
        self.versions: dict[int, VersionInfo] = {}
        self.current: int | None = None
        self.head_at: datetime | None = None
        self.base_since = 0
        self.reviewer: dict[int, dict[str, ScoreValue]] = {}
        self.auto: dict[int, AutoScore] = {}
        self.first: dict[str, ScoreValue] = {}
        self.first_sources: dict[str, str] = {}
        self.approvals: dict[int, Approval] = {}
        self.history: list[Approval] = []
        self.overrides: list[OverrideInfo] = []
        self.feedback: list[Feedback] = []
        self.final: Event | None = None

    @classmethod
    def resume(cls, state: JobState) -> _Folder:
        """The accumulator as it stood when it produced `state`, to fold further events on."""
        folder = cls(state.repo, state.pr)
        folder.author = state.author
        folder.events = list(state.events)
        folder.versions = {v.number: v for v in state.versions}
        # only a pull-request event sets the current version, and it also sets `head_at`
        folder.current = state.current_number if state.head_at is not None else None
        folder.head_at = state.head_at
        folder.base_since = state.base_since
        folder.reviewer = {n: dict(scores) for n, scores in state.reviewer_scores.items()}
        folder.auto = dict(state.auto)
        folder.first = dict(state.first_submission)
        folder.first_sources = dict(state.first_sources)
        folder.approvals = dict(state.approvals)
        folder.history = list(state.approval_history)
        folder.overrides = list(state.overrides)
        folder.feedback = list(state.feedback)
        folder.final = state.final
        return folder

    def apply(self, event: Event) -> None:
        """Apply one event."""
        self.events.append(event)
        self.author = self.author or event.author
        if event.kind not in ("disputed", "rated"):
            self._see_version(event)
        getattr(self, f"_on_{event.kind}")(event)

    def _see_version(self, event: Event) -> None:
        known = self.versions.get(event.version)
        heads = known.heads if known else ()
        if event.head_sha and event.head_sha not in heads:
            heads = (*heads, event.head_sha)
        becomes_current = (event.delivery or "").startswith(PR_DELIVERY) and (
            known is None or self.current != event.version
        )
        self.versions[event.version] = VersionInfo(
            number=event.version,
            head_sha=event.head_sha or (known.head_sha if known else None),
            tree_sha=event.tree_sha or (known.tree_sha if known else None),
            change_id=event.change_id or (known.change_id if known else None),
            heads=heads,
            at=known.at if known else event.at,
            since=event.at if known is None or becomes_current else known.since,
        )
        if becomes_current:
            self.current = event.version
        if (event.delivery or "").startswith(PR_DELIVERY):
            self.head_at = event.at
        if (event.delivery or "").startswith(RETARGET_DELIVERY):
            self.base_since = event.version

    def _on_first_submission(self, event: Event) -> None:
        if counts_as_first_submission(event):
            for cid, value in (event.scores or {}).items():
                self.first[cid] = value
                self.first_sources[cid] = criterion_source(event, cid)
        if event.source != "reviewer":
            self._auto(event)

    def _on_review_scored(self, event: Event) -> None:
        if event.source == "reviewer":
            merged = {**self.reviewer.get(event.version, {}), **(event.scores or {})}
            self.reviewer[event.version] = merged
            if event.feedback:
                self._feedback("note", event)
        else:
            self._auto(event)

    def _auto(self, event: Event) -> None:
        self.auto[event.version] = AutoScore(
            version=event.version,
            scores=dict(event.scores or {}),
            weighted_total=event.weighted_total,
            verdict=event.verdict,
            source=event.source or "auto",
            evidence=tuple(event.evidence or ()),
        )

    def _on_approved(self, event: Event) -> None:
        previous = self.approvals.get(event.version)
        if event.override is not None:
            info = OverrideInfo(event.version, event.override.reason, event.actor, event.at)
            self.overrides.append(info)
            base = previous or approval_of(event)
            approval = replace(base, override=info, override_in=delivery_group(event.delivery))
        else:
            approval = approval_of(event)
        self.approvals[event.version] = approval
        self.history.append(approval)

    def _on_revision_requested(self, event: Event) -> None:
        approval = self.approvals.pop(event.version, None)
        group = delivery_group(event.delivery)
        if approval is not None and dismissal(event.delivery) and group != approval.given_in:
            kept = replace(approval, override=None, override_in=None)  # only what it gave goes
            self.approvals[event.version] = kept if group == approval.override_in else approval
        self._feedback("revise", event)

    def _on_final_approval(self, event: Event) -> None:
        self.final = event

    def _on_abandoned(self, event: Event) -> None:
        """The lifecycle is `job_lifecycle`'s to decide."""

    def _on_rated(self, event: Event) -> None:
        self._feedback("rate", event)

    def _on_disputed(self, event: Event) -> None:
        self._feedback("dispute", event)

    def _feedback(self, kind: FeedbackKind, event: Event) -> None:
        text = event.feedback or ""
        self.feedback.append(
            Feedback(kind, event.version, event.actor, event.at, text, event.rating)
        )

    def state(self) -> JobState:
        """The folded, immutable state."""
        return JobState(
            repo=self.repo,
            pr=self.pr,
            author=self.author,
            events=tuple(self.events),
            versions=tuple(self.versions[n] for n in sorted(self.versions)),
            reviewer_scores=dict(self.reviewer),
            auto=dict(self.auto),
            first_submission=dict(self.first),
            first_sources=dict(self.first_sources),
            approvals=dict(self.approvals),
            approval_history=tuple(self.history),
            overrides=tuple(self.overrides),
            feedback=tuple(self.feedback),
            final=self.final,
            abandoned=job_lifecycle(self.events) == "abandoned",
            handled_deliveries=frozenset(e.delivery for e in self.events if e.delivery),
            current_number=self.current or max(self.versions, default=0),
            head_at=self.head_at,
            base_since=self.base_since,
        )
