"""Reading an event keeps today's verdicts: the same refusals, word for word, and the same lines.

The messages and outcomes were recorded from the pydantic model that read every event before
the canonical reader (see `ledger.event`): a list of bad inputs with their exact messages, and
a digest of what reading each of about 48,000 generated inputs gives (`event_inputs`).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator
from typing import Any

import pytest

from rubricate.errors import LedgerError
from rubricate.ledger import event as event_module
from rubricate.ledger.codec import event_from_dict, event_from_line
from rubricate.rubric import model as rubric_model
from tests.ledger.event_inputs import (
    BASE,
    BASES,
    MISSING,
    json_text,
    line_outcomes,
    value_outcomes,
    with_value,
)

PINNED: list[tuple[str, Any, str]] = [
    ("pr", 0, "pr: Input should be greater than or equal to 1"),
    ("pr", 2147483648, "pr: must be at most 2147483647 (a GitHub pull request number)"),
    ("pr", 1.5, "pr: Input should be a valid integer, got a number with a fractional part"),
    ("repo", "a/b/c", "repo: must look like owner/name, not 'a/b/c'"),
    ("repo", "", "repo: String should have at least 1 character"),
    (
        "kind",
        "nope",
        "kind: Input should be 'first_submission', 'review_scored', 'revision_requested', "
        "'approved', 'final_approval', 'abandoned', 'rated' or 'disputed'",
    ),
    ("at", "2024-03-01T12:00:00", "at: timestamps must carry a timezone (RFC 3339)"),
    (
        "at",
        "2024-02-30T00:00:00Z",
        "at: Input should be a valid datetime or date, day value is outside expected range",
    ),
    ("at", "0001-01-01T00:00:00+01:00", "at: the time is out of range in UTC"),
    ("id", "", "id: String should have at least 1 character"),
    ("change_id", "x" * 101, "change_id: String should have at most 100 characters"),
    ("sig", "x" * 201, "sig: String should have at most 200 characters"),
    ("rating", 6, "rating: Input should be less than or equal to 5"),
    ("version", 0, "version: Input should be greater than or equal to 1"),
    ("weighted_total", "\x00raw:NaN", "weighted_total: Input should be a finite number"),
    ("evidence", [{"a": math.nan}], "evidence: NaN and Infinity are not valid JSON numbers"),
    ("schema_version", 2, "schema_version: Input should be 1"),
    ("extra", 1, "extra: Extra inputs are not permitted"),
    ("author", MISSING, "author: Field required"),
    ("scores", {"zz": 1}, "scores.zz: not a criterion of rubric r v1"),
    ("scores", {"s": 9}, "scores.s: 9 is outside the rubric's scale 1-5"),
    ("scores", {"s": None}, "scores.s: null is allowed only on a nullable criterion"),
    (
        "feedback",
        '\x00raw:"\\ud800"',
        "not JSON (unexpected end of hex escape at line 1 column 527)",
    ),
    (
        "actor_role",
        "root",
        "actor_role: Input should be 'admin', 'maintain', 'write', 'triage', 'read', 'none' "
        "or 'bot'",
    ),
    (
        "rubric.scale",
        {"min": 5, "max": 5},
        "rubric.scale: rubric.scale: max (5) must be above min (5)",
    ),
    ("rubric.criteria.s.weight", 0, "rubric.criteria.s.weight: Input should be greater than 0"),
    ("override", {"reason": "short"}, "override.reason: String should have at least 20 characters"),
    (
        "judge.cached",
        "maybe",
        "judge.cached: Input should be a valid boolean, unable to interpret input",
    ),
    ("rubric.extra", 1, "rubric.extra: Extra inputs are not permitted"),
]
"""A field (dotted path), a value put there, and the message recorded for the line."""
LINES = [
    ("{not json", "not JSON (key must be a string at line 1 column 2)"),
    ("[]", "Input should be an object"),
    ("", "not JSON (EOF while parsing a value at line 1 column 0)"),
    (
        json_text(with_value(BASES[1], ("rating",), MISSING)),
        "a 'rated' event needs a rating from 1 to 5",
    ),
    (
        json_text(BASE | {"pr": "x", "repo": 5, "kind": 1, "actor": 2}),
        "kind: Input should be 'first_submission', 'review_scored', 'revision_requested', "
        "'approved', 'final_approval', 'abandoned', 'rated' or 'disputed'; repo: Input should be "
        "a valid string; pr: Input should be a valid integer, unable to parse string as an "
        "integer (and 1 more)",
    ),
]  # fmt: skip
RAW = {"kind": "rated", "repo": "o/r", "pr": 3, "author": "a", "actor": "b", "rating": 4,
       "at": "2024-03-01T12:00:00Z"}  # fmt: skip
DICTS = [
    (RAW, "an event needs a delivery: its id is the hash of its natural key"),
    (
        RAW | {"delivery": "d", "id": "f" * 64},
        "refused: id ffffffffffffffff is not the hash of its natural key "
        "(kind, repo, pr, version, delivery)",
    ),
    (
        RAW | {"delivery": "d", "pr": "x"},
        "id: String should have at least 1 character; pr: Input should be a valid integer, "
        "unable to parse string as an integer",
    ),
]
RECORDED = {
    "lines": (23677, 15104, "bd2f44f642628d63be531e9794992cf23523e706fd6e459c7a70e09165c1340a"),
    "values": (24711, 16006, "a079445042f2d776c48730bef5dd98236922e413a7636c55c74309774ba72ae9"),
}
"""How many generated inputs, how many refused, and the digest of every outcome in order."""


@pytest.mark.parametrize(("path", "value", "message"), PINNED, ids=lambda x: str(x)[:30])
def test_a_bad_field_is_refused_with_the_recorded_message(
    path: str, value: Any, message: str
) -> None:
    base = BASES[2] if path.split(".")[0] in ("override", "judge") else BASE
    line = json_text(with_value(base, tuple(path.split(".")), value))
    with pytest.raises(LedgerError) as refused:
        event_from_line(line)
    assert str(refused.value) == message


@pytest.mark.parametrize(("line", "message"), LINES)
def test_a_bad_line_is_refused_with_the_recorded_message(line: str, message: str) -> None:
    with pytest.raises(LedgerError) as refused:
        event_from_line(line)
    assert str(refused.value) == message


@pytest.mark.parametrize(("raw", "message"), DICTS)
def test_a_bad_new_event_is_refused_with_the_recorded_message(
    raw: dict[str, Any], message: str
) -> None:
    with pytest.raises(LedgerError) as refused:
        event_from_dict(raw)
    assert str(refused.value) == message


def _digest(outcomes: Iterator[tuple[Any, str]]) -> tuple[int, int, str]:
    digest, count, refused = hashlib.sha256(), 0, 0
    for _, result in outcomes:
        digest.update(result.encode("utf-8", "surrogatepass") + b"\0")
        count += 1
        refused += result.startswith("refused")
    return count, refused, digest.hexdigest()


def test_every_generated_line_reads_as_recorded() -> None:
    assert _digest(line_outcomes()) == RECORDED["lines"]


def test_every_generated_mapping_reads_as_recorded() -> None:
    assert _digest(value_outcomes()) == RECORDED["values"]


def test_a_score_s_range_allows_the_rubric_s_tolerance() -> None:
    assert event_module.TOLERANCE == rubric_model.TOLERANCE
