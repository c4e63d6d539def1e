"""Character n-gram features tried for the injection detector (`injection_trials --trial
chars` and `--trial grams-3-5`); the shipped detector reads each word's 3- and 4-grams
(`detector.word_features`), character pairs of a script without spaces as its tokens
(`detector_text.tokens_of`) and pairs of adjacent tokens.
"""

from __future__ import annotations

import itertools

from rubricate.judge.detector import pairs, word_features
from rubricate.judge.detector_text import MARKER_TOKENS
from rubricate.judge.scripts import UNSPACED


def features_3_5(tokens: list[str]) -> list[str]:
    """The shipped features and each word's character 5-grams."""
    found = [g for token in tokens for g in word_features(token)]
    for token in tokens:
        if token[:1] not in MARKER_TOKENS:
            padded = f"<{token}>"
            found += [f"c:{padded[i : i + 5]}" for i in range(len(padded) - 4)]
    return found + pairs(tokens)


def across_words(first: str, second: str) -> list[str]:
    """The character 3- to 5-grams across the space between two adjacent words, the space
    inside each gram (a gram with the space at its edge is a word's own boundary gram)."""
    joined = f"{first[-3:]} {second[:3]}"
    space = min(len(first), 3)
    return [
        f"a:{joined[i : i + n]}"
        for n in (3, 4, 5)
        for i in range(max(0, space - n + 2), min(space, len(joined) - n + 1))
    ]


def unspaced_runs(tokens: list[str]) -> list[str]:
    """The runs of a script without spaces that `tokens_of` cut into overlapping pairs
    (`ab`, `bc` -> `abc`), each whole."""
    runs: list[str] = []
    for token in tokens:
        if len(token) == 2 and token[:1] not in MARKER_TOKENS and UNSPACED.search(token):
            if runs and runs[-1][-1:] == token[:1]:
                runs[-1] += token[1]
            else:
                runs.append(token)
        elif runs and runs[-1] != "":
            runs.append("")
    return [r for r in runs if r]


def within_features(tokens: list[str]) -> list[str]:
    """The shipped features, each word's 5-grams (beside the shipped 3- and 4-grams) and the
    3- and 4-grams of each run of a script without spaces (whose tokens are character
    pairs): n-grams a detector could cache per word, as it caches the shipped ones."""
    found = features_3_5(tokens)
    for run in unspaced_runs(tokens):
        padded = f"<{run}>"
        found += [f"u:{padded[i : i + n]}" for n in (3, 4) for i in range(len(padded) - n + 1)]
    return found


def chars_features(tokens: list[str]) -> list[str]:
    """`within_features` and the 3- to 5-grams across each space between adjacent words
    (`across_words`: a word split or joined differently, a phrase's shape), which a detector
    would have to find for every pair of adjacent words it reads."""
    found = within_features(tokens)
    words = [t for t in tokens if t[:1] not in MARKER_TOKENS and not UNSPACED.search(t)]
    for first, second in itertools.pairwise(words):
        found += across_words(first, second)
    return found
