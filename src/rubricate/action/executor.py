"""Apply a handler's effects: the ledger first, then the views (shell: GitHub and git I/O).

Views are idempotent, so a re-run heals a half-applied run: the ledger skips events it holds,
the sticky comment is edited only when its text changes, and a check run or status that the
view state shows unchanged costs no request (except, with the view state read from the data
branch, a gate status that is not green: sent once on every run, so no view state, even an older
signed one put back, can keep a green up; and a green gate is skipped only when GitHub's newest
status shows it, as a run that lowered the head and stopped never told the view state;
`rubricate serve` keeps its view state in its own database, lowerings included, and takes its
word). A failing view does not stop the others; every failure is
collected and reported, and the run then fails.

One exception to "the ledger first": a gate status that takes down a green goes out before the
append, so a run that then fails never leaves a green the ledger no longer holds. After writing
a green, the gate is read again at the data branch's tip and set again if another run changed it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from rubricate.action.handles import DataStore, GitHubClient
from rubricate.action.local import apply_local
from rubricate.action.local import print_effects as print_effects
from rubricate.action.runtime import ActionsRuntime
from rubricate.bot.effects import (
    AppendEvents,
    Effect,
    MarkAnswered,
    PostComment,
    React,
    SetCheckRun,
    SetStatus,
    Undecided,
    UpsertComment,
    annotation_batches,
    check_output,
    effect_to_dict,
)
from rubricate.bot.view_state import CheckState, StatusView, StickyState, ViewState, digest
from rubricate.errors import ExecutionError as ExecutionError
from rubricate.errors import RubricateError
from rubricate.ledger.event import Event
from rubricate.ledger.store import AppendResult

_DATA_FIELDS = (
    "id kind repo pr author actor actor_role at version head_sha tree_sha change_id rubric scores"
    " verdict source gate delivery sig schema_version rating deadline weighted_total normalized"
)
_EVENT_DATA = frozenset(_DATA_FIELDS.split())
"""Event fields that are data, never free text: redaction leaves them alone."""

GATE = "rubricate/approval"

if TYPE_CHECKING:  # the adapter loads PyGithub: a dry run without a token never needs it
    from rubricate.github.adapter import CommentInfo


@dataclass
class ExecutionResult:
    """What applying the effects did: the new view state, log lines and failures."""

    views: ViewState
    applied: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def raise_errors(self) -> None:
        """Raise one `ExecutionError` naming every failed effect."""
        if self.errors:
            raise ExecutionError("some effects failed: " + "; ".join(self.errors))


class Executor:
    """Applies effects through the adapter, the ledger store and the Actions runtime."""

    def __init__(
        self,
        api: GitHubClient,
        ledger: DataStore | None,
        runtime: ActionsRuntime,
        views: ViewState,
        *,
        details_url: str | None = None,
        review_nodes: Mapping[int, str] | None = None,
        regate: Callable[[str], SetStatus] | None = None,
        shared: Callable[[str], SetStatus | None] | None = None,
        views_trusted: bool = False,
        doubted: Collection[str] = frozenset(),
    ) -> None:
        """`views_trusted`: the view state comes from a store no one else writes (the service's
        database), so its word is taken for every status but those `doubted` (`context@sha`:
        another state was sent for them that the view state may not know); the data branch's
        is not taken for a gate that is not green (`_lowers_gate`), nor for a green that GitHub
        does not show (`_shown`)."""
        self._api = api
        self._views_trusted = views_trusted
        self._doubted = frozenset(doubted)
        self._regate = regate
        self._shared = shared
        self._review_nodes = dict(review_nodes or {})
        self._ledger = ledger
        self._runtime = runtime
        self._details_url = details_url
        self._outcome = ExecutionResult(views=views.model_copy(deep=True))
        self._sent: dict[str, StatusView] = {}  # the statuses this run set: never sent twice

    def apply(self, effects: Sequence[Effect]) -> ExecutionResult:
        """Append every event in one write, then apply each view in order."""
        events = [
            e for effect in effects if isinstance(effect, AppendEvents) for e in effect.events
        ]
        if events:
            assert self._ledger is not None, "effects with events need a ledger"
            for effect in effects:  # a green that goes down goes down before the ledger moves
                if isinstance(effect, SetStatus) and self._lowers(effect):
                    self._status(effect)
            result = self._ledger.append([self._redacted(e) for e in events])
            self._note(f"ledger: {_describe_append(result, len(events))}")
        for effect in effects:
            if not isinstance(effect, AppendEvents):
                self._apply_view(effect)
        return self._outcome

    def _redacted(self, event: Event) -> Event:
        """The event with any secret in its free text replaced; names, ids, kinds and shas are
        data and stay as they are (the id is kept)."""
        data = event.model_dump(mode="json", exclude_none=True)
        clean = {k: v if k in _EVENT_DATA else self._redact_value(v) for k, v in data.items()}
        return event if clean == data else Event.model_validate(clean)

    def _redact_value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self._runtime.redact(value)
        if isinstance(value, list):
            return [self._redact_value(v) for v in value]
        if isinstance(value, dict):
            return {k: self._redact_value(v) for k, v in value.items()}
        return value

    def _apply_view(self, effect: Effect) -> None:
        try:
            self._dispatch(effect)
        except RubricateError as exc:
            message = self._runtime.redact(str(exc))
            if isinstance(effect, PostComment) and "(422)" in message:  # refused for good
                return self._runtime.annotate("warning", f"rubricate: reply refused: {message}")
            self._outcome.errors.append(f"{type(effect).__name__}: {message}")
            self._runtime.annotate("error", f"{type(effect).__name__} failed: {message}")

    def _dispatch(self, effect: Effect) -> None:
        if apply_local(effect, self._runtime):
            return
        if isinstance(effect, UpsertComment):
            self._upsert(effect)
        elif isinstance(effect, PostComment):
            self._reply(effect)
        elif isinstance(effect, SetCheckRun):
            self._check_run(effect)
        elif isinstance(effect, SetStatus):
            self._status(effect)
        elif isinstance(effect, React):
            self._react(effect)
        elif isinstance(effect, MarkAnswered):
            self._mark_answered(effect.prefix)
        elif isinstance(effect, Undecided):
            raise ExecutionError(effect.reason)

    def _reply(self, effect: PostComment) -> None:
        """Post a reply once: on a re-run attempt, a reply that an earlier attempt posted is
        found by its marker and not posted again."""
        looks = effect.marker and not effect.fresh
        found = self._api.find_sticky(effect.pr, effect.marker) if looks else None
        if found is not None:
            return self._note(f"reply on #{effect.pr} already posted (comment {found.id})")
        body = self._runtime.redact(effect.body)
        comment_id = self._api.create_comment(effect.pr, body, effect.marker)
        self._note(f"replied on #{effect.pr} (comment {comment_id})")

    def _mark_answered(self, prefix: str) -> None:
        """Only after every earlier effect succeeded: a failed reply is retried by a re-run."""
        if self._outcome.errors:
            return self._note(f"{prefix} not marked answered: an effect failed")
        self._outcome.views = self._outcome.views.with_answered(prefix)
        self._note(f"{prefix} marked answered")

    def _upsert(self, effect: UpsertComment) -> None:
        body = self._runtime.redact(effect.body)
        wanted = digest(body)
        views = self._outcome.views
        known = effect.comment_id or (views.sticky.id if views.sticky else None)
        if views.sticky and views.sticky.id == known and views.sticky.digest == wanted:
            self._note(f"sticky comment {known} unchanged")
            return
        if known and views.sticky and views.sticky.id == known and views.sticky.digest:
            if self._api.edit_comment(known, body):
                return self._remember_sticky(known, wanted, "edited")
        elif known:
            current = self._api.comment(known)
            if current is not None and self._is_sticky(current, effect.marker):
                return self._write_sticky(current, body, wanted)
        found = None if effect.fresh else self._api.find_sticky(effect.pr, effect.marker)
        if found is not None:
            return self._write_sticky(found, body, wanted)
        created = self._api.create_comment(effect.pr, body, effect.marker)
        self._remember_sticky(created, wanted, "created")

    def _is_sticky(self, comment: CommentInfo, marker: str) -> bool:
        return comment.author == self._api.bot_login and marker in comment.body

    def _write_sticky(self, current: CommentInfo, body: str, wanted: str) -> None:
        if current.body == body:
            return self._remember_sticky(current.id, wanted, "unchanged")
        if not self._api.edit_comment(current.id, body):
            raise ExecutionError(f"sticky comment {current.id} vanished while editing it")
        self._remember_sticky(current.id, wanted, "edited")

    def _remember_sticky(self, comment_id: int, wanted: str, how: str) -> None:
        self._outcome.views.sticky = StickyState(id=comment_id, digest=wanted)
        self._note(f"sticky comment {comment_id} {how}")

    def _check_run(self, effect: SetCheckRun) -> None:
        """Update the head's check run in place unless new annotations need a fresh one.

        Annotations only append, so changed annotations mean a new run; an effect without any
        (a command, which has no report) keeps the run's existing ones.
        """
        batches = annotation_batches(effect.annotations)
        wanted = digest(effect_to_dict(replace(effect, annotations=())))
        known = self._outcome.views.checks.get(effect.head_sha)
        notes = digest([b for batch in batches for b in batch]) if batches else ""
        if known and known.unsent and notes and known.annotations == notes:  # stopped between
            rest = batches[-known.unsent :] if known.unsent < len(batches) else []
            sent = bool(rest) and self._send_batches(effect, known, rest)
            known = self._outcome.views.checks[effect.head_sha] if sent else None  # else anew
        keeps_notes = known is not None and (not notes or known.annotations == notes)
        if known and keeps_notes and known.digest == wanted:
            return self._note(f"check run {known.id} unchanged")
        if known and keeps_notes:
            output = check_output(effect)
            if self._api.update_check_run(known.id, output, effect.conclusion):
                return self._remember_check(
                    effect.head_sha, known.id, wanted, known.annotations, "updated", known.unsent
                )
        output = check_output(effect, batches[0] if batches else None)
        check_id = self._api.create_check_run(
            effect.head_sha, effect.name, effect.conclusion, output, self._details_url
        )
        created = CheckState(id=check_id, digest=wanted, annotations=notes)
        if not self._send_batches(effect, created, batches[1:]):
            raise ExecutionError(f"check run {check_id} vanished while adding its annotations")
        self._remember_check(effect.head_sha, check_id, wanted, notes, "created")

    def _send_batches(
        self, effect: SetCheckRun, run: CheckState, batches: Sequence[list[dict[str, Any]]]
    ) -> bool:
        """Add the batches of annotations to the run, one request each, keeping in the view
        how many are left after each, so a run stopped between them goes on from there; False
        when the run is gone (its view is then dropped)."""
        views = self._outcome.views.checks
        for sent, batch in enumerate(batches):
            views[effect.head_sha] = run.model_copy(update={"unsent": len(batches) - sent})
            if not self._api.update_check_run(run.id, check_output(effect, batch)):
                del views[effect.head_sha]
                return False
        views[effect.head_sha] = run.model_copy(update={"unsent": None})
        return True

    def _remember_check(
        self, sha: str, check_id: int, wanted: str, notes: str, how: str, unsent: int | None = None
    ) -> None:
        self._outcome.views.checks[sha] = CheckState(
            id=check_id, digest=wanted, annotations=notes, unsent=unsent
        )
        self._note(f"check run {check_id} {how} on {sha[:12]}")

    def _status(self, effect: SetStatus, *, recheck: bool = True) -> None:
        description = effect.description[:140]
        key = f"{effect.context}@{effect.sha}"
        wanted = StatusView(state=effect.state, description=description)
        untrusted = (_lowers_gate(effect) and not self._views_trusted) or key in self._doubted
        known = self._sent if untrusted else self._outcome.views.statuses
        if known.get(key) == wanted and self._shown(effect, key, wanted):
            return self._note(f"status {effect.context} unchanged ({effect.state})")
        if effect.state == "success" and effect.context == GATE and self._shared:
            other = self._shared(effect.sha)  # a green only when no open PR with this head is red
            if other is not None:
                self._note(f"status {effect.context}: {other.description}")
                return self._status(other, recheck=False)
        self._api.set_status(
            effect.sha, effect.state, description, effect.context, self._details_url
        )
        self._outcome.views.statuses[key] = self._sent[key] = wanted
        self._note(f"status {effect.context} = {effect.state} on {effect.sha[:12]}")
        if recheck and effect.state == "success" and effect.context == GATE and self._regate:
            self._recheck(effect)

    def _shown(self, effect: SetStatus, key: str, wanted: StatusView) -> bool:
        """Whether GitHub shows the status the view state says it does. The data branch's view
        state is not taken for a green gate: a run lowers a head (`FailureTarget.lowered`)
        before it could record that in the view state, and one cancelled or failed after that
        leaves GitHub pending under a view state that says green; so GitHub's newest status is
        read (one request, no status added to the commit) before a green is skipped."""
        if self._views_trusted or effect.context != GATE or key in self._sent:
            return True
        latest = self._api.latest_status(effect.sha, effect.context)
        return latest == (wanted.state, wanted.description)

    def _lowers(self, effect: SetStatus) -> bool:
        """True when the effect takes down a green this bot set (as the view state knows)."""
        known = self._outcome.views.statuses.get(f"{effect.context}@{effect.sha}")
        return effect.state != "success" and known is not None and known.state == "success"

    def _recheck(self, effect: SetStatus) -> None:
        """After a green: the gate as the data branch's tip has it now. A run that raced another
        (an `/approve` and a `/revise` at once) sets what the tip supports, never a stale green."""
        assert self._regate is not None
        again = self._regate(effect.sha)
        if (again.state, again.description[:140]) != (effect.state, effect.description[:140]):
            self._note(f"the ledger moved on: status {again.context} set again from its tip")
            self._status(again, recheck=False)

    def _react(self, effect: React) -> None:
        if effect.target == "review":
            node = self._review_nodes.get(effect.comment_id)
            if node is None:
                return self._note(
                    f"review {effect.comment_id}: no node id, {effect.content} skipped"
                )
            self._api.react_to_node(node, effect.content)
        else:
            self._api.react(effect.comment_id, effect.content)
        self._note(f"reacted {effect.content} to {effect.target} {effect.comment_id}")

    def _note(self, line: str) -> None:
        self._outcome.applied.append(line)
        self._runtime.log(line)


def _lowers_gate(effect: SetStatus) -> bool:
    """A gate status that is not green is always sent, whatever the view state says: an older
    signed view state put back on the data branch must never keep a green up."""
    return effect.context == GATE and effect.state != "success"


def _describe_append(result: AppendResult, total: int) -> str:
    added = getattr(result, "added", None)
    if added is None:
        return f"{total} event(s) appended"
    return f"{added} added, {getattr(result, 'present', 0)} already present"
