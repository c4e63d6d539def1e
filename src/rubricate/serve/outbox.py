"""The outbox: the view effects a handled delivery left for its PR's publish job, as JSON, and
the latest state they add up to (shell: PostgreSQL; the decoding and collapsing are pure).

A publish job applies only the newest sticky comment, the newest check run of each head and the
newest status of each context and head; replies, reactions and answered marks are kept in order.
A state it drops under a later, other one is named (`states_dropped`): GitHub may show it.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from rubricate.bot.effects import (
    Annotation,
    Effect,
    MarkAnswered,
    PostComment,
    React,
    SetCheckRun,
    SetStatus,
    Undecided,
    UpsertComment,
    effect_to_dict,
)

if TYPE_CHECKING:
    import psycopg

PUBLISHED = (UpsertComment, PostComment, SetCheckRun, SetStatus, React, MarkAnswered, Undecided)
"""The effects a publish job applies on GitHub or in the view state."""
_BY_NAME: dict[str, type[Any]] = {kind.__name__: kind for kind in PUBLISHED}


def encode(effects: Iterable[Effect], redact: Callable[[str], str] = str) -> str:
    """The publishable effects as one JSON array, every text passed through `redact`."""
    return json.dumps(
        [_texts(effect_to_dict(e), redact) for e in effects if isinstance(e, PUBLISHED)]
    )


def _texts(value: Any, redact: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [_texts(v, redact) for v in value]
    if isinstance(value, dict):
        return {k: _texts(v, redact) for k, v in value.items()}
    return value


def decode(data: Sequence[dict[str, Any]]) -> list[Effect]:
    """The effects of `encode`, back."""
    effects: list[Effect] = []
    for item in data:
        kind = _BY_NAME[item["effect"]]
        values = {f.name: item[f.name] for f in dataclasses.fields(kind) if f.name in item}
        if kind is SetCheckRun:
            values["annotations"] = tuple(Annotation(**a) for a in values.get("annotations", ()))
        effects.append(kind(**values))
    return effects


def latest(effects: Sequence[Effect]) -> list[Effect]:
    """The effects with every superseded view dropped, in their order."""
    last: dict[tuple[Any, ...], int] = {}
    for index, effect in enumerate(effects):
        key = _view_key(effect)
        if key is not None:
            last[key] = index
    return [e for i, e in enumerate(effects) if (k := _view_key(e)) is None or last[k] == i]


def states_dropped(effects: Sequence[Effect]) -> frozenset[str]:
    """The statuses (`context@sha`) whose latest state differs from an earlier unpublished one:
    a publish that sent that earlier state and died, or lost GitHub's answer, before it recorded
    it left GitHub showing a state the view state does not know (a green the gate no longer
    gives, or a retarget's or a dismissal's lowering under the green that settles it), so their
    latest state is sent whatever the view state says."""
    states: dict[str, list[str]] = {}
    for effect in effects:
        if isinstance(effect, SetStatus):
            states.setdefault(f"{effect.context}@{effect.sha}", []).append(effect.state)
    return frozenset(key for key, seen in states.items() if any(s != seen[-1] for s in seen))


def _view_key(effect: Effect) -> tuple[Any, ...] | None:
    if isinstance(effect, UpsertComment):
        return ("sticky", effect.pr)
    if isinstance(effect, SetCheckRun):
        return ("check", effect.head_sha, effect.name)
    if isinstance(effect, SetStatus):
        return ("status", effect.sha, effect.context)
    return None


def put(
    conn: psycopg.Connection[Any],
    where: tuple[str, int, int, str],
    effects: Iterable[Effect],
    redact: Callable[[str], str] = str,
) -> None:
    """Leave the effects for the publish job of `where` (repo, PR, installation, delivery), in
    the caller's transaction."""
    conn.execute(
        "INSERT INTO rubricate_outbox (repo, pr, installation, delivery, effects)"
        " VALUES (%s, %s, %s, %s, %s::jsonb)",
        (*where, encode(effects, redact)),
    )


def pending(
    conn: psycopg.Connection[Any], repo: str, pr: int
) -> tuple[int, int, list[Effect], frozenset[str]]:
    """The newest row's seq, its installation, the latest state of every unpublished row (seq 0
    when there is none), and the statuses whose other state `latest` dropped (`states_dropped`)."""
    rows = conn.execute(
        "SELECT seq, installation, effects FROM rubricate_outbox"
        " WHERE repo = %s AND pr = %s AND published_at IS NULL ORDER BY seq",
        (repo, pr),
    ).fetchall()
    if not rows:
        return 0, 0, [], frozenset()
    effects = [e for _, _, data in rows for e in decode(data)]
    return int(rows[-1][0]), int(rows[-1][1]), latest(effects), states_dropped(effects)


def mark_published(conn: psycopg.Connection[Any], repo: str, pr: int, up_to: int) -> None:
    """Mark the PR's rows up to `up_to` published."""
    conn.execute(
        "UPDATE rubricate_outbox SET published_at = now()"
        " WHERE repo = %s AND pr = %s AND seq <= %s AND published_at IS NULL",
        (repo, pr, up_to),
    )
