"""Meaning features for the injection trials: each span's mean word-piece vector.

A word the detector reads (`detector_text.tokens_of`) is cut into the word pieces of a
sentence-embedding model's vocabulary (`word_pieces`: BERT's greedy longest-match WordPiece,
accents stripped, as the model's own tokenizer cuts a lower-cased word; `injection_embeddings`
checks that on a sample). The vectors are those `injection_embeddings` distils (an `.npz`); a
span's row is the mean of its words' pieces' vectors (marker tokens left out), each column
scaled by its spread over the spans so that its weights train at the pace of the hashed
features'. A model linear in that row folds into one weight per piece (`fold`), so the
detector could carry it as a few hundred kB of data and pure Python at run time; measured by
`injection_trials` (training-LOSO), it did not beat the hashed features alone, so it is not
shipped (DESIGN.md section 7).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rubricate.judge.detector import features_of
from rubricate.judge.detector_text import MARKER_TOKENS

MAX_WORD = 100
"""Longer words are one unknown piece, as the model's tokenizer reads them."""


def strip_accents(word: str) -> str:
    """The word decomposed (NFD) with its combining marks dropped, as BERT's uncased tokenizer."""
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFD", word) if unicodedata.category(c) != "Mn")


def _alone(char: str) -> bool:
    """Whether BERT's basic tokenizer makes this character a piece of its own."""
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    cjk = (0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2CEAF)
    cjk += (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)
    return unicodedata.category(char).startswith("P") or any(a <= code <= b for a, b in cjk)


def split_symbols(word: str) -> list[str]:
    """The word cut around punctuation and CJK characters (each its own piece) and at white
    space and control characters, as BERT's basic tokenizer cuts it."""
    parts: list[str] = []
    current = ""
    for char in word:
        gap = char.isspace() or unicodedata.category(char) in ("Cc", "Cf")
        if gap or _alone(char):
            if current:
                parts.append(current)
            current = ""
            if not gap:
                parts.append(char)
        else:
            current += char
    return [*parts, current] if current else parts


def word_pieces(word: str, vocabulary: dict[str, int], unknown: int) -> list[int]:
    """The ids of a lower-cased word's pieces: greedy longest match, continuations `##`-marked;
    a part with no match (or longer than `MAX_WORD`) is the one `unknown` piece."""
    found: list[int] = []
    for part in split_symbols(strip_accents(word)):
        mine: list[int] = []
        start = 0
        while start < len(part) and len(part) <= MAX_WORD:
            end = len(part)
            match = None
            while start < end and match is None:
                match = vocabulary.get(part[start:end] if start == 0 else "##" + part[start:end])
                end -= match is None
            if match is None:
                break
            mine.append(match)
            start = end
        found += mine if start == len(part) and mine else [unknown]
    return found


@dataclass
class Vectors:
    """The distilled vocabulary: its pieces, their vectors, the unknown piece, provenance."""

    pieces: list[str]
    vectors: np.ndarray
    unknown: int
    info: dict[str, object]

    @classmethod
    def load(cls, path: Path) -> Vectors:
        with np.load(path) as data:
            return cls(
                [str(p) for p in data["pieces"]],
                data["vectors"].astype(np.float64),
                int(data["unknown"]),
                json.loads(str(data["info"])),
            )

    def rows(
        self,
        tokenized: list[list[list[str]]],
        features: Callable[[list[str]], list[str]] = features_of,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each span's mean piece vector, in the order `train_injection.Spans` numbers the
        spans (a span without features has no row), and each column's scale."""
        index = {piece: i for i, piece in enumerate(self.pieces)}
        cache: dict[str, tuple[np.ndarray, int]] = {}
        zero = np.zeros(self.vectors.shape[1])
        out: list[np.ndarray] = []
        for item_spans in tokenized:
            for tokens in item_spans:
                if not features(tokens):
                    continue
                total, count = zero, 0
                for token in tokens:
                    if token[:1] in MARKER_TOKENS:
                        continue
                    known = cache.get(token)
                    if known is None:
                        ids = word_pieces(token, index, self.unknown)
                        known = (self.vectors[ids].sum(axis=0), len(ids))
                        cache[token] = known
                    total = total + known[0]
                    count += known[1]
                out.append(total / count if count else zero)
        matrix = np.array(out)
        scale = matrix.std(axis=0) + 1e-9
        return matrix / scale, scale

    def fold(self, weights: np.ndarray, scale: np.ndarray) -> np.ndarray:
        """A model's meaning weights as one weight per piece (a span's term is the mean of
        its pieces' weights): the form a run-time detector would carry."""
        return np.asarray(self.vectors @ (weights / scale))


def layer_margins(
    dense: np.ndarray, labels: np.ndarray, sample: np.ndarray, hidden: int = 16, steps: int = 150
) -> np.ndarray:
    """Every span's margin under one hidden layer (tanh) over its meaning row, fitted by
    full-batch Adam on the spans with sample > 0 (weighted logistic loss, small L2)."""
    rng = np.random.default_rng(27)
    used = sample > 0
    x, y, s = dense[used], labels[used], sample[used] / sample[used].sum()
    shapes = [(dense.shape[1], hidden), (hidden,), (hidden,), (1,)]
    params = [rng.normal(0, 1 / np.sqrt(dense.shape[1]), shapes[0]), *map(np.zeros, shapes[1:])]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    for step in range(1, steps + 1):
        w, c, u, b = params
        h = np.tanh(x @ w + c)
        residual = (1 / (1 + np.exp(-np.clip(h @ u + b, -60, 60))) - y) * s
        back = np.outer(residual, u) * (1 - h * h)
        grads = [x.T @ back + 1e-4 * w, back.sum(0), h.T @ residual + 1e-4 * u, residual.sum()]
        for i, g in enumerate(grads):
            m[i] = 0.9 * m[i] + 0.1 * g
            v[i] = 0.999 * v[i] + 0.001 * g * g
            params[i] = params[i] - 0.02 * (m[i] / (1 - 0.9**step)) / (
                np.sqrt(v[i] / (1 - 0.999**step)) + 1e-8
            )
    w, c, u, b = params
    return np.asarray(np.tanh(dense @ w + c) @ u + b)
