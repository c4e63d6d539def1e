"""`jsontext.indented` writes exactly what `json.dumps(value, indent=2, sort_keys=True)` does."""

from __future__ import annotations

import json
import random
from enum import Enum
from typing import Any

import pytest

from rubricate.ledger.derive import reputation_file
from rubricate.ledger.jsontext import indented
from tests.ledger.factory import completed_job
from tests.ledger.memory_branch import apply_events

STRINGS = ["", "a", "é", "\u2028", "\ud800", '"\\/', "\n\t\x00", "😀", "key with spaces"]
SCALARS: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    2**70,
    0.0,
    -0.0,
    1e-320,
    1.5e300,
    0.1,
    float("nan"),
    float("inf"),
    float("-inf"),
    *STRINGS,
]


def _value(chance: random.Random, depth: int) -> Any:
    pick = chance.random()
    if depth > 4 or pick < 0.4:
        return chance.choice(SCALARS)
    if pick < 0.7:
        return [_value(chance, depth + 1) for _ in range(chance.randint(0, 4))]
    keys = chance.sample([*STRINGS, "b", "c", "z"], chance.randint(0, 5))
    return {key: _value(chance, depth + 1) for key in keys}


def _same(value: Any) -> None:
    assert indented(value) == json.dumps(value, indent=2, sort_keys=True)


def test_generated_values_are_written_as_json_dumps_writes_them() -> None:
    chance = random.Random(29)
    for _ in range(3000):
        _same(_value(chance, 0))


class Colour(str, Enum):
    RED = "red"


class Count(int):
    pass


@pytest.mark.parametrize(
    "value",
    [
        {"a": Colour.RED},
        [Count(3)],
        {2: "x", 1: "y"},
        {None: 1},
        {"a": (1, 2)},
        {"a": {"b": [{}, [], [[]], {"c": {}}]}},
    ],
)
def test_values_it_does_not_know_are_left_to_json_dumps(value: Any) -> None:
    _same(value)


def test_a_cycle_is_refused_as_json_dumps_refuses_it() -> None:
    looped: dict[str, Any] = {}
    looped["self"] = [looped]
    with pytest.raises(ValueError, match="Circular reference"):
        indented(looped)


def test_a_reputation_file_is_json_dumps_text() -> None:
    tree: dict[str, bytes] = {}
    for pr in range(1, 30):
        apply_events(tree, completed_job(pr, [pr % 5 + 1] * 5, [4] * 5, pr, author=f"a{pr % 6}"))
    document = json.loads(tree["reputation.json"])
    assert document["repos"]
    expected = (json.dumps(document, indent=2, sort_keys=True) + "\n").encode()
    assert reputation_file(document) == expected == tree["reputation.json"]
