"""Validates a judge's reply against the rubric, listing every problem (pure: no I/O).

Nothing in a reply is trusted: every expected id must appear exactly once, no other id may
appear, no object may repeat a key (`json.loads` would silently keep the last one), and each
score must be one of the criterion's allowed values. The passages the judge reports as
addressed to the reviewer (`REPORT_KEY`) are advisory: missing or null means none; an entry over
the limits is dropped, and a value of another shape (not a list of strings, the key repeated)
or under a misspelled key (any other top-level key with a leading underscore, which no
criterion id has, or the key without it) is malformed; both are counted, never a problem of the
reply.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rubricate.errors import ReplyError
from rubricate.judge.reply_schema import (
    MAX_QUOTE_CHARS,
    MAX_QUOTES,
    MAX_RATIONALE_CHARS,
    MAX_REPORT_CHARS,
    MAX_REPORTS,
    REPORT_KEY,
)
from rubricate.judge.score_choices import OPEN_CEILING, allowed_scores, as_json_number, is_open
from rubricate.rubric import scoring
from rubricate.rubric.model import TOLERANCE, Criterion, Rubric, ScoreValue


@dataclass(frozen=True)
class CriterionJudgment:
    """The judge's score for one criterion, its rationale and its evidence quotes."""

    id: str
    score: ScoreValue
    rationale: str
    evidence: tuple[str, ...] = ()
    verified: tuple[str, ...] = ()
    """The quotes found verbatim in the input (filled in after parsing)."""
    input_flagged: bool = False
    """True when the injection scan flagged text this call was shown (filled in after parsing):
    then no quote lifts the evidence cap."""

    def as_dict(self) -> dict[str, Any]:
        """A JSON shape for the cache."""
        return {
            "id": self.id,
            "score": int(self.score) if isinstance(self.score, bool) else self.score,
            "rationale": self.rationale,
            "evidence": list(self.evidence),
            "verified": list(self.verified),
            "input_flagged": self.input_flagged,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CriterionJudgment:
        """The inverse of `as_dict`."""
        return cls(
            id=str(data["id"]),
            score=data["score"],
            rationale=str(data["rationale"]),
            evidence=tuple(str(q) for q in data["evidence"]),
            verified=tuple(str(q) for q in data["verified"]),
            input_flagged=_flag(data["input_flagged"]),
        )


@dataclass(frozen=True)
class Judgment:
    """A validated reply: one judgment per expected criterion id, in rubric order."""

    criteria: tuple[CriterionJudgment, ...]
    reported: tuple[str, ...] = ()
    """The passages the judge reported as addressed to the reviewer, within the limits."""
    dropped: int = 0
    """Reported passages dropped: too long, or past `MAX_REPORTS`."""
    malformed: int = 0
    """Reported values of another shape than a list of strings, or under a misspelled key."""

    def by_id(self) -> dict[str, CriterionJudgment]:
        """Criterion id to judgment."""
        return {c.id: c for c in self.criteria}


def parse_reply(
    text: str, rubric: Rubric, criteria_ids: Iterable[str], ceiling: float = OPEN_CEILING
) -> Judgment:
    """Parse and validate a reply for `criteria_ids`; raise `ReplyError` listing every problem."""
    expected = tuple(criteria_ids)
    pairs = _json_pairs(text)
    problems: list[str] = []
    seen: dict[str, Any] = {}
    reports: list[Any] = []
    misplaced = 0
    for key, value in pairs:
        if key == REPORT_KEY:
            reports.append(value)
            continue
        if key not in expected and _misspelled_report_key(key):
            misplaced += 1
            continue
        if key in seen:
            problems.append(f"criterion {_show(key)} appears more than once")
        elif key not in expected:
            problems.append(f"unknown criterion {_show(key)}; expected only {', '.join(expected)}")
        seen.setdefault(key, value)
    problems += [f"criterion {cid!r} is missing" for cid in expected if cid not in seen]
    judged: list[CriterionJudgment] = []
    for cid in (c for c in expected if c in seen):
        judgment = _criterion(rubric, rubric.criterion(cid), seen[cid], problems, ceiling)
        if judgment is not None:
            judged.append(judgment)
    if problems:
        raise ReplyError(problems)
    reported, dropped, malformed = reported_passages(reports)
    return Judgment(tuple(judged), reported, dropped, malformed + misplaced)


def reported_passages(values: list[Any]) -> tuple[tuple[str, ...], int, int]:
    """The passages reported under `REPORT_KEY` (each value the key was given, in order) within
    the limits, how many were dropped (too long, past `MAX_REPORTS`) and how many values or
    entries were malformed (a value that is not a list or null, an entry that is not a string,
    each repeat of the key); null and blank entries are neither kept nor counted."""
    if not values or values[0] is None:
        return (), 0, len(values[1:])
    if not isinstance(values[0], list):
        return (), 0, len(values)
    given = [e for e in values[0] if not (e is None or (isinstance(e, str) and not e.strip()))]
    strings = [e for e in given if isinstance(e, str)]
    kept = [e for e in strings if len(e) <= MAX_REPORT_CHARS][:MAX_REPORTS]
    return tuple(kept), len(strings) - len(kept), len(values) - 1 + len(given) - len(strings)


def _misspelled_report_key(key: str) -> bool:
    """True for a top-level key that can only be a misspelled `REPORT_KEY`: a leading
    underscore (no criterion id has one: `rubric/build.py`), or the key without it."""
    return key.startswith("_") or key == REPORT_KEY.lstrip("_")


class _Object(dict[str, Any]):
    """A decoded JSON object that remembers the keys it repeated."""

    repeated: tuple[str, ...] = ()


def _json_pairs(text: str) -> list[tuple[str, Any]]:
    """The top-level key/value pairs of a JSON object, repeats kept (nested ones remembered)."""
    top: list[list[tuple[str, Any]]] = []

    def keep(pairs: list[tuple[str, Any]]) -> _Object:
        top.append(pairs)
        decoded = _Object(pairs)
        if len(decoded) != len(pairs):
            keys = [key for key, _value in pairs]
            decoded.repeated = tuple(dict.fromkeys(k for k in keys if keys.count(k) > 1))
        return decoded

    try:
        data = json.loads(text, object_pairs_hook=keep)
    except (ValueError, RecursionError) as exc:
        raise ReplyError([f"the reply is not valid JSON ({_short(str(exc))})"]) from None
    if not isinstance(data, dict):
        raise ReplyError([f"the reply must be a JSON object, not {type(data).__name__}"])
    return top[-1]


def _criterion(
    rubric: Rubric, criterion: Criterion, entry: Any, problems: list[str], ceiling: float
) -> CriterionJudgment | None:
    cid = criterion.id
    if not isinstance(entry, dict):
        problems.append(f"criterion {cid!r} must be an object with score, rationale and evidence")
        return None
    if isinstance(entry, _Object) and entry.repeated:
        repeats = ", ".join(map(_show, entry.repeated))
        problems.append(f"criterion {cid!r} repeats the key(s) {repeats}")
    unknown = sorted(set(entry) - {"score", "rationale", "evidence"})
    if unknown:
        problems.append(f"criterion {cid!r} has unexpected keys: {', '.join(map(_show, unknown))}")
    score = _score(rubric, criterion, entry.get("score"), problems, "score" in entry, ceiling)
    rationale = entry.get("rationale")
    if not isinstance(rationale, str):
        problems.append(f"criterion {cid!r}: rationale must be a string")
        rationale = ""
    elif len(rationale) > MAX_RATIONALE_CHARS:
        problems.append(
            f"criterion {cid!r}: rationale has {len(rationale)} characters,"
            f" more than {MAX_RATIONALE_CHARS}"
        )
    evidence = entry.get("evidence")
    if not isinstance(evidence, list) or not all(isinstance(q, str) for q in evidence):
        problems.append(f"criterion {cid!r}: evidence must be a list of strings")
        evidence = []
    elif len(evidence) > MAX_QUOTES or any(len(q) > MAX_QUOTE_CHARS for q in evidence):
        problems.append(
            f"criterion {cid!r}: evidence must be at most {MAX_QUOTES} quotes of at most"
            f" {MAX_QUOTE_CHARS} characters each"
        )
    quotes = tuple(q for q in evidence if q.strip())
    return CriterionJudgment(cid, score, rationale.strip(), quotes)


def _score(
    rubric: Rubric,
    criterion: Criterion,
    value: Any,
    problems: list[str],
    present: bool,
    ceiling: float,
) -> ScoreValue:
    cid = criterion.id
    allowed = allowed_scores(rubric, criterion, ceiling)
    choices = (
        f"a whole number from {as_json_number(allowed[0])} to {as_json_number(allowed[-1])}"
        if is_open(rubric)
        else ", ".join(str(as_json_number(v)) for v in allowed)
    )
    if not present:
        problems.append(f"criterion {cid!r}: score is missing")
        return None
    if value is None and criterion.nullable:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        problems.append(
            f"criterion {cid!r}: score {_show(value)} is not a number; allowed: {choices}"
        )
        return None
    if not any(abs(_as_float(value) - v) <= TOLERANCE for v in allowed):
        problems.append(f"criterion {cid!r}: score {_show(value)} is not one of {choices}")
        return None
    return scoring.check(rubric, cid, float(value))


def _as_float(value: int | float) -> float:
    """A JSON number as a float; an integer too large for one is infinite (never an error)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError("input_flagged must be a boolean")
    return value


def _show(value: Any) -> str:
    return _short(json.dumps(value, ensure_ascii=True), 40)


def _short(value: str, limit: int = 120) -> str:
    return value if len(value) <= limit else value[: limit - 1] + "…"
