"""Meaning features for training the injection detector: each span's mean word-piece vector.

The vectors are those `injection_embeddings` distils (an `.npz`); a span's row is the mean of
its words' pieces' vectors (`detector_meaning.word_pieces`, marker tokens left out), each
column scaled by its spread over the spans (so the weights train at the pace of the hashed
features'). A model linear in that row folds into one weight per piece (`fold`), which is what
the detector ships (`detector_meaning.Meaning`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rubricate.judge.detector import features_of
from rubricate.judge.detector_meaning import Meaning
from rubricate.judge.detector_text import MARKER_TOKENS


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
        meaning = Meaning(self.pieces, [0.0] * len(self.pieces), self.unknown)
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
                        ids = meaning.pieces(token)
                        known = (self.vectors[ids].sum(axis=0), len(ids))
                        cache[token] = known
                    total = total + known[0]
                    count += known[1]
                out.append(total / count if count else zero)
        matrix = np.array(out)
        scale = matrix.std(axis=0) + 1e-9
        return matrix / scale, scale

    def fold(self, weights: np.ndarray, scale: np.ndarray) -> Meaning:
        """The run-time form of a model's meaning weights: one weight per piece."""
        per_piece = self.vectors @ (weights / scale)
        return Meaning(self.pieces, [float(w) for w in per_piece], self.unknown)
