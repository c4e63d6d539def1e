"""Builds the judge's messages and response schema within a token budget (pure: no I/O).

Instructions and the rubric (trusted: read from the base branch) go in the system message.
Untrusted text (the spec, the PR title and body, the changed files) goes in the user message,
stripped of hidden content, each field wrapped in tags that carry the call's random marker,
followed by a reminder. Inside the data the marker is removed and every tag-like `<untrusted`
is escaped, so no field can close its wrapper. The `request` phase gets spec and PR text, no diff.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from rubricate.errors import PromptTooLargeError
from rubricate.evidence.snapshot import FileChange, Snapshot
from rubricate.judge import prompt_text as text
from rubricate.judge.budget import (
    MESSAGE_OVERHEAD_TOKENS,
    MIN_USEFUL_TOKENS,
    Budget,
    LeftOut,
    estimate_tokens,
    exclusion_reason,
    file_text,
    has_content,
    patch_lines,
    relevance_key,
    truncate_lines,
)
from rubricate.judge.hidden import Stripped, find_hidden, strip_hidden
from rubricate.judge.prompt_text import Phase
from rubricate.judge.quotes import Evidence, build_evidence, without_markers
from rubricate.judge.reply_schema import response_schema
from rubricate.judge.reports import ShownText
from rubricate.judge.scan import REQUEST_FIELDS, scan_injection
from rubricate.rubric.model import Rubric

_Fit = Literal["whole", "cut", "none"]
_TRUNCATED = ' truncated="yes"'
_REQUEST_TAGS = (text.FIELD_SPEC, text.FIELD_TITLE, text.FIELD_BODY)
_SCAN_CHARS = 200_000
"""At most this much of a field's raw text is scanned (the part shown is always scanned too)."""
_UNSAFE_ATTR = re.compile(r"[^\w./@+\-]")
_TAG_LIKE = re.compile(r"<(?=\s*/?\s*untrusted)", re.IGNORECASE)
LINES_TOO_LONG = "lines too long to show"


@dataclass(frozen=True)
class Prompt:
    """One judge call: messages, schema, what was shown, and the estimated size."""

    phase: Phase
    marker: str
    messages: list[dict[str, str]]
    schema: dict[str, Any]
    criteria_ids: tuple[str, ...]
    tokens_estimate: int
    files_seen: tuple[str, ...] = ()
    files_truncated: tuple[str, ...] = ()
    files_left_out: tuple[LeftOut, ...] = ()
    evidence: Evidence = field(default=Evidence(), repr=False)
    """The untrusted fields the model saw, for checking quotes, and the trusted text."""
    flagged: tuple[str, ...] = ()
    """The fields shown that the injection scan flagged (their text is never evidence)."""
    stripped: tuple[Stripped, ...] = ()
    """Hidden text removed from what was shown (field or file, line, bytes, what)."""
    untrusted: tuple[ShownText, ...] = field(default=(), repr=False)
    """Every untrusted field as shown, flagged ones too, for checking the judge's reports."""


@dataclass(frozen=True)
class _Field:
    """One untrusted field to wrap: its tag name, where the scan reports it, its attributes."""

    name: str
    where: str
    attrs: str = ""
    quotable: bool = True
    """False when the scan flagged the raw text (hidden content included)."""
    patch: bool = False
    cut: bool = False
    """True when the text was already truncated to the per-file limit."""
    lines: tuple[int, ...] = ()
    """For a patch, the head file's line at each of its lines."""
    raw: str = ""
    """The text before hidden content was stripped (where a reported passage is located)."""


@dataclass
class _Draft:
    """The user message as it is filled, with the tokens still free."""

    free: int
    blocks: list[str] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)
    flagged: list[str] = field(default_factory=list)
    stripped: list[Stripped] = field(default_factory=list)
    untrusted: list[ShownText] = field(default_factory=list)

    def visible(self, where: str, raw: str, line_map: list[int] | None = None) -> str:
        """`raw` without hidden text; each strip is recorded (patch lines mapped to the file)."""
        text, strips = find_hidden(raw)
        for strip in strips:
            line = strip.line
            if line_map is not None and 0 < line <= len(line_map):
                line = line_map[line - 1]
            self.stripped.append(Stripped(where, line, strip.removed, strip.what))
        return text

    def add(self, block: str, shown: str) -> None:
        self.blocks.append(block)
        self.shown.append(shown)
        self.free -= estimate_tokens(block) + 1


def phase_criteria(rubric: Rubric, phase: Phase) -> tuple[str, ...]:
    """The ids of the criteria scored in a phase, in rubric order."""
    return tuple(c.id for c in rubric.criteria if c.judged_from == phase)


def build_prompt(
    rubric: Rubric, snapshot: Snapshot, budget: Budget, *, marker: str, phase: Phase
) -> Prompt:
    """The messages and schema for one judge call that fit `budget.max_input_tokens`."""
    ids = phase_criteria(rubric, phase)
    system = text.system_message(rubric, ids, marker, phase, budget.open_ceiling)
    reminder = text.REMINDER.format(marker=marker, ids=", ".join(ids))
    fixed = estimate_tokens(system) + estimate_tokens(reminder) + 2 * MESSAGE_OVERHEAD_TOKENS
    reserve = budget.left_out_tokens if phase == "submission" else 0
    if fixed + reserve > budget.max_input_tokens:
        raise PromptTooLargeError(
            f"the rubric needs about {fixed + reserve} tokens, more than the judge budget of"
            f" {budget.max_input_tokens} (judge.max_input_tokens)"
        )
    draft = _Draft(free=budget.max_input_tokens - fixed - reserve)
    _add_request(draft, snapshot, budget, marker, phase)
    seen: tuple[str, ...] = ()
    truncated: tuple[str, ...] = ()
    left_out: tuple[LeftOut, ...] = ()
    if phase == "submission":
        seen, truncated, left_out = _add_files(draft, snapshot, budget, marker)
        draft.free += reserve
        _add_left_out(draft, left_out, marker, not snapshot.changes)
    user = "\n\n".join([*draft.blocks, reminder])
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    return Prompt(
        phase=phase,
        marker=marker,
        messages=messages,
        schema=response_schema(rubric, ids, budget.open_ceiling),
        criteria_ids=ids,
        tokens_estimate=fixed + sum(estimate_tokens(b) + 1 for b in draft.blocks),
        files_seen=seen,
        files_truncated=truncated,
        files_left_out=left_out,
        evidence=build_evidence(
            draft.shown, _trusted_text(rubric, system, reminder, marker, phase)
        ),
        flagged=tuple(draft.flagged),
        stripped=tuple(draft.stripped),
        untrusted=tuple(draft.untrusted),
    )


def _trusted_text(rubric: Rubric, system: str, reminder: str, marker: str, phase: Phase) -> str:
    """Every trusted text the model may see: the whole rubric (all phases), rules and notes."""
    whole = text.system_message(rubric, rubric.ids, marker, phase)
    return "\n".join([system, whole, reminder, *text.TRUSTED_NOTES])


def _add_request(
    draft: _Draft, snapshot: Snapshot, budget: Budget, marker: str, phase: Phase
) -> None:
    """Spec first (the reference), then the PR title and description, each truncated to fit."""
    cap = budget.request_field_tokens if phase == "submission" else None
    for (attribute, where), field_name in zip(REQUEST_FIELDS, _REQUEST_TAGS, strict=True):
        raw = getattr(snapshot, attribute)
        if raw.strip():
            quotable = _quotable(raw[:_SCAN_CHARS], where)
            item = _Field(field_name, where, quotable=quotable, raw=raw)
            _add_wrapped(draft, item, draft.visible(where, raw), marker, cap)


def _add_wrapped(
    draft: _Draft, item: _Field, body: str, marker: str, cap: int | None = None
) -> _Fit:
    """Wrap and add one untrusted field, truncated to the space left (and to `cap` tokens).

    Text of a field flagged for injection is shown but never counts as evidence.
    """
    body = _neutralised(body, marker)
    cut_attrs = item.attrs if item.cut else item.attrs + _TRUNCATED
    room = draft.free - estimate_tokens(
        _wrap("", item.name, marker, cut_attrs) + text.TRUNCATED_NOTE
    )
    room = min(room - 1, cap) if cap is not None else room - 1
    if room < MIN_USEFUL_TOKENS and estimate_tokens(body) > room:
        return "none"
    kept, cut = truncate_lines(body, max(room, 0))
    if cut and item.name == text.FIELD_FILE and not has_content(kept):
        return "none"
    quotable = item.quotable
    if quotable and len(kept) > _SCAN_CHARS:  # more is shown than the raw scan covered
        quotable = _quotable(kept, item.where, item.patch)
    if not quotable:
        draft.flagged.append(item.where)
    draft.untrusted.append(ShownText(item.where, kept, item.raw, item.lines))
    evidence = kept if quotable else ""
    if not (cut or item.cut):
        draft.add(_wrap(kept, item.name, marker, item.attrs), evidence)
        return "whole"
    draft.add(_wrap(kept + text.TRUNCATED_NOTE, item.name, marker, cut_attrs), evidence)
    return "cut"


def _quotable(raw: str, where: str, patch: bool = False) -> bool:
    """False when the scan flags the text: quotes from it must not lift the evidence cap."""
    findings = scan_injection(without_markers(raw) if patch else raw, where)
    return not any(f.severity == "warning" for f in findings)


def _neutralised(body: str, marker: str) -> str:
    """The body with every occurrence of the marker removed and tag-like text escaped."""
    return _TAG_LIKE.sub("&lt;", _without(body, marker))


def _without(value: str, marker: str) -> str:
    while marker and marker in value:
        value = value.replace(marker, "")
    return value


def _wrap(body: str, field_name: str, marker: str, attrs: str) -> str:
    """One wrapped field; neither the body nor the attributes can carry the marker."""
    opening = text.WRAP_OPEN.format(marker=marker, field=field_name, attrs=_without(attrs, marker))
    return f"{opening}\n{_neutralised(body, marker)}\n{text.WRAP_CLOSE.format(marker=marker)}"


def _add_files(
    draft: _Draft, snapshot: Snapshot, budget: Budget, marker: str
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[LeftOut, ...]]:
    """Changed files by relevance until the budget runs out; the rest are listed as left out."""
    seen: list[str] = []
    truncated: list[str] = []
    left_out: list[LeftOut] = []
    request = snapshot.request_text
    for change in sorted(snapshot.changes, key=lambda c: relevance_key(c, request)):
        reason = exclusion_reason(change)
        raw = file_text(change) if reason is None else None
        if reason is None and raw is None:
            reason = "no text"
        if reason is None and draft.free < MIN_USEFUL_TOKENS:
            reason = "token budget"
        fit: _Fit = "none"
        if reason is None:
            fit, reason = _add_file(draft, change, raw or "", budget, marker)
        if fit == "none":
            left_out.append(LeftOut(change.path, reason or "token budget"))
            continue
        seen.append(change.path)
        if fit == "cut":
            truncated.append(change.path)
    return tuple(seen), tuple(truncated), tuple(left_out)


def _add_file(
    draft: _Draft, change: FileChange, raw: str, budget: Budget, marker: str
) -> tuple[_Fit, str | None]:
    """Add one file, cut at a line boundary to the per-file limit; the fit, or why left out."""
    is_patch = bool(change.patch.strip())
    line_map = patch_lines(change.patch) if is_patch else None
    capped, cut = truncate_lines(draft.visible(change.path, raw, line_map), budget.max_file_tokens)
    if cut and not has_content(capped):
        return "none", LINES_TOO_LONG
    attrs = f' path="{_attr(change.path)}" status="{change.status}"'
    if change.old_path:
        attrs += f' from="{_attr(change.old_path)}"'
    quotable = _quotable(raw[:_SCAN_CHARS], change.path, is_patch)
    attrs += _TRUNCATED if cut else ""
    lines = tuple(line_map) if line_map is not None else ()
    item = _Field(text.FIELD_FILE, change.path, attrs, quotable, is_patch, cut, lines, raw)
    return _add_wrapped(draft, item, capped, marker), None


def _add_left_out(draft: _Draft, left_out: tuple[LeftOut, ...], marker: str, empty: bool) -> None:
    if empty:
        draft.add(_wrap(text.NO_CHANGES, text.FIELD_LEFT_OUT, marker, ""), "")
        return
    if not left_out:
        return
    lines: list[str] = []
    room = draft.free - estimate_tokens(_wrap("", text.FIELD_LEFT_OUT, marker, "")) - 24
    for index, item in enumerate(left_out):
        line = text.LEFT_OUT_LINE.format(path=_attr(item.path), reason=item.reason)
        room -= estimate_tokens(line) + 1
        if room < 0:
            lines.append(text.LEFT_OUT_MORE.format(count=len(left_out) - index))
            break
        lines.append(line)
    draft.add(_wrap("\n".join(lines), text.FIELD_LEFT_OUT, marker, ""), "")


def _attr(value: str) -> str:
    return _UNSAFE_ATTR.sub("?", strip_hidden(value))[:200]
