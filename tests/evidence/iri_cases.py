"""Strings for the IRI format tests: IRIs, relative references and near misses, built from a seed.

`iri_cases(n, seed)` gives hand-picked strings, every IPv6 literal shape around "::", and `n`
strings made by mutating seed IRIs with characters from the edges of RFC 3987's ranges.
"""

from __future__ import annotations

import random

SEEDS = (
    "https://example.org/a/b?c=d#e",
    "http://user:pw@example.org:8080/p/a/t/h?query=1&x#frag",
    "urn:isbn:0451450523",
    "mailto:a@example.org",
    "file:///etc/hosts",
    "ftp://192.0.2.1/x",
    "http://[1:2:3:4:5:6:7:8]/",
    "http://[1:2:3:4:5:6:192.0.2.1]:80/",
    "http://[v7.a:b]/",
    "https://例え.jp/パス?クエリ#断片",
    "x:%41%7e",
    "//host/path",
    "/abs/path?q",
    "rel/path#f",
    "./a:b",
    "../../x",
    "?only=query",
    "#only-fragment",
    "",
    "tag:example.org,2024:x",
)
EDGE_CHARS = (
    "\u009f\u00a0\u00e9\ud7ff\ud800\udfff\ue000\uf8ff\uf900\ufdcf\ufdd0\ufdef\ufdf0\uffef\ufff0"
    "\ufffe\U00010000\U0001f600\U0001fffd\U000e1000\U000efffd\U000f0000\U0010fffd"
)
ASCII = "".join(chr(code) for code in range(32, 127)) + "\t\n\x00\x7f"
ALPHABET = ASCII + ":/?#[]@%%%" + EDGE_CHARS


def ipv6_literals() -> list[str]:
    """`http://[…]/` with every count of groups before and after "::", two tail kinds."""
    found = []
    for before in range(9):
        for after in range(9):
            for tail in ("", "192.0.2.1"):
                groups = [f"{index + 1:x}" for index in range(before)]
                rest = [f"b{index}" for index in range(after)] + ([tail] if tail else [])
                found.append(f"http://[{':'.join(groups)}::{':'.join(rest)}]/")
                found.append(f"http://[{':'.join(groups + rest)}]/")
    return found


def mutated(rng: random.Random) -> str:
    """A seed IRI with one to three characters inserted, deleted or replaced."""
    text = list(rng.choice(SEEDS))
    for _ in range(rng.randint(1, 3)):
        where = rng.randint(0, len(text))
        action = rng.random()
        if action < 0.4 or not text:
            text.insert(where, rng.choice(ALPHABET))
        elif action < 0.7:
            del text[min(where, len(text) - 1)]
        else:
            text[min(where, len(text) - 1)] = rng.choice(ALPHABET)
    return "".join(text)


def iri_cases(n: int, seed: int = 3987) -> list[str]:
    """The seeds, every character of the alphabet in a path, query and fragment, the IPv6
    shapes and `n` mutated seeds (deterministic for a seed)."""
    rng = random.Random(seed)
    cases = list(SEEDS) + ipv6_literals()
    for char in ALPHABET:
        cases += [f"x:/{char}", f"x:?{char}", f"x:#{char}", f"{char}", f"a{char}b:c"]
    cases += [mutated(rng) for _ in range(n)]
    return list(dict.fromkeys(cases))
