"""Strings for the duration format tests: durations, near misses and odd numerals, from a seed.

`duration_cases(n, seed)` gives hand-picked strings, every pair of designators in both orders,
and `n` strings made by mutating seed durations with characters the check treats specially.
"""

from __future__ import annotations

import itertools
import random

SEEDS = (
    "P1Y2M3DT4H5M6S",
    "P3W",
    "PT0.5S",
    "-P1,5D",
    "+PT1e3H",
    "P0D1W",
    "P1Y2T3H",
    "P0001-02-03T04:05:06",
    "P20240101T000000",
    "PT36H",
    "P1.M",
    "P.5Y",
)
ALPHABET = "PT+-0123456789.,eEYMDWHSZz:x \u00e9\u0663\u00b2\n"
HAND = (
    "",
    "P",
    "PT",
    "+P",
    "-P",
    "P1",
    "1D",
    "p1d",
    "P1d",
    "PD",
    "P1DT",
    "P1YM",
    "P1D1Y",
    "P1Y1W",
    "P1W1D",
    "P1WT1H",
    "P-0D1W",
    "P0e5D1W",
    "P1e-2000000D1W",
    "P1e1000000D",
    "PT1e1000000S",
    "P1e99999999999999999999999D",
    "P1..2D",
    "P1-2D",
    "P1eD",
    "P.D",
    "P.e5D",
    "P1.e5D",
    "PT1HT2M",
    "PT1H1W",
    "P2020-01-01T00:00:00S",
    "P2020-01-01T00:00:00Z",
    "P2020-01-01T10H",
    "P1T1H",
    "P1Y2T",
    "P\u0663D",
    "P1\u00b2D",
)


def duration_cases(n: int, seed: int = 0) -> list[str]:
    """Hand-picked strings, designator pairs, and `n` mutations of each seed."""
    cases = list(HAND) + list(SEEDS)
    letters = "YMDWTHS"
    for first, second in itertools.product(letters, repeat=2):
        cases += [f"P1{first}2{second}", f"PT1{first}2{second}", f"P0{first}2{second}"]
    rng = random.Random(seed)
    for text in SEEDS:
        for _ in range(n):
            chars = list(text)
            for _ in range(rng.randint(1, 3)):
                where = rng.randrange(len(chars) + 1)
                action = rng.random()
                if action < 0.4:
                    chars.insert(where, rng.choice(ALPHABET))
                elif action < 0.7 and where < len(chars):
                    chars[where] = rng.choice(ALPHABET)
                elif where < len(chars):
                    del chars[where]
            cases.append("".join(chars))
    return cases
