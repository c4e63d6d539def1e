"""The injection detector's meaning features: word pieces and their distilled weights (pure).

A word the detector reads (`detector_text.tokens_of`) is cut into the word pieces of a
sentence-embedding model's vocabulary (`word_pieces`: BERT's greedy longest-match WordPiece,
accents stripped, as the model's own tokenizer cuts a lower-cased word). At training time each
piece's vector is distilled from that model (`benchmarks/injection_embeddings.py`) and a
span's meaning is the mean of its pieces' vectors; the detector's logistic model is linear in
that mean, so its weight vector folds into one number per piece, and the shipped data
(`injection_meaning.bin`) is the vocabulary and those numbers. `Meaning.terms` gives each span's
added margin from running sums, as `judge.detector` sums its hashed features. See DESIGN.md
section 7.
"""

from __future__ import annotations

import array
import itertools
import operator
import struct
import unicodedata
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

MEANING_MAGIC = b"RBMEAN1"
MAX_WORD = 100
"""Longer words are one unknown piece, as the model's tokenizer reads them."""
_CACHED = 100_000
_MARKER_BYTES = frozenset((b"#", b"^"))


def strip_accents(word: str) -> str:
    """The word decomposed (NFD) with its combining marks dropped, as BERT's uncased tokenizer."""
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFD", word) if unicodedata.category(c) != "Mn")


def split_symbols(word: str) -> list[str]:
    """The word cut around punctuation and CJK characters (each its own piece), as BERT's basic
    tokenizer cuts it; a detector token is letters and digits, so this rarely cuts anything."""
    parts: list[str] = []
    current: list[str] = []
    for char in word:
        code = ord(char)
        alone = _is_cjk(code) or unicodedata.category(char).startswith("P")
        alone = alone or (33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96)
        alone = alone or 123 <= code <= 126
        if alone:
            if current:
                parts.append("".join(current))
                current = []
            parts.append(char)
        elif unicodedata.category(char) in ("Cc", "Cf") or char.isspace():
            if current:
                parts.append("".join(current))
                current = []
        else:
            current.append(char)
    if current:
        parts.append("".join(current))
    return parts


def _is_cjk(code: int) -> bool:
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x20000 <= code <= 0x2A6DF
        or 0x2A700 <= code <= 0x2CEAF
        or 0xF900 <= code <= 0xFAFF
        or 0x2F800 <= code <= 0x2FA1F
    )


def word_pieces(word: str, vocabulary: dict[str, int], unknown: int) -> list[int]:
    """The ids of a lower-cased word's pieces: greedy longest match, continuations `##`-marked;
    a part with no match (or longer than `MAX_WORD`) is the one `unknown` piece."""
    found: list[int] = []
    for part in split_symbols(strip_accents(word)):
        if len(part) > MAX_WORD:
            found.append(unknown)
            continue
        mine: list[int] = []
        start = 0
        while start < len(part):
            end = len(part)
            match = None
            while start < end:
                piece = part[start:end] if start == 0 else "##" + part[start:end]
                match = vocabulary.get(piece)
                if match is not None:
                    break
                end -= 1
            if match is None:
                mine = [unknown]
                break
            mine.append(match)
            start = end
        found += mine
    return found


@dataclass
class Meaning:
    """The vocabulary and each piece's weight (its vector dotted with the model's weights)."""

    vocabulary: list[str]
    weights: list[float]
    unknown: int
    _index: dict[str, int] = field(default_factory=dict, repr=False)
    _words: dict[bytes, tuple[float, int]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._index = {piece: i for i, piece in enumerate(self.vocabulary)}

    @classmethod
    def from_bytes(cls, data: bytes, version: str) -> Meaning:
        """Read the meaning file: magic, version, unknown id, scale, the vocabulary (one piece
        a line) and int16 weights (zlib). Raises ValueError when it is not that version's."""
        try:
            raw = zlib.decompress(data)
        except zlib.error as exc:
            raise ValueError(f"not an injection meaning file ({exc})") from exc
        if not raw.startswith(MEANING_MAGIC):
            raise ValueError("not an injection meaning file")
        at = len(MEANING_MAGIC)
        size = raw[at]
        found = raw[at + 1 : at + 1 + size].decode("ascii")
        if found != version:
            raise ValueError(f"meaning weights are {found}, this code reads {version}")
        at += 1 + size
        unknown, scale, length = struct.unpack_from("<idi", raw, at)
        at += struct.calcsize("<idi")
        vocabulary = raw[at : at + length].decode("utf-8").split("\n")
        quantised = array.array("h")
        quantised.frombytes(raw[at + length :])
        if len(quantised) != len(vocabulary) or not 0 <= unknown < len(vocabulary):
            raise ValueError("injection meaning weights have the wrong size")
        return cls(vocabulary, [w * scale for w in quantised], unknown)

    def to_bytes(self, version: str) -> bytes:
        """The file `from_bytes` reads (weights quantised to 16 bits)."""
        scale = max(max(map(abs, self.weights), default=0.0), 1e-9) / 32767
        quantised = array.array("h", (round(w / scale) for w in self.weights))
        words = "\n".join(self.vocabulary).encode("utf-8")
        name = version.encode("ascii")
        header = MEANING_MAGIC + bytes([len(name)]) + name
        header += struct.pack("<idi", self.unknown, scale, len(words))
        return zlib.compress(header + words + quantised.tobytes(), 9)

    def pieces(self, word: str) -> list[int]:
        """The ids of a word's pieces (`word_pieces`)."""
        return word_pieces(word, self._index, self.unknown)

    def word(self, token: bytes) -> tuple[float, int]:
        """A token's summed piece weights and piece count; a marker token has none."""
        known = self._words.get(token)
        if known is None:
            if token[:1] in _MARKER_BYTES:
                known = (0.0, 0)
            else:
                ids = self.pieces(token.decode("utf-8", "surrogatepass"))
                known = (sum(map(self.weights.__getitem__, ids)), len(ids))
            if len(self._words) >= _CACHED:
                self._words.clear()
            self._words[token] = known
        return known

    def terms(
        self, tokens: Sequence[bytes], bounds: Sequence[int], runs: Iterable[tuple[int, int]]
    ) -> list[float]:
        """Each run's added margin: the mean of its pieces' weights (0 for a run without
        pieces). Piece i is `tokens[bounds[i]:bounds[i+1]]`, as in `Detector._probabilities`."""
        found = list(map(self.word, tokens))
        sums = list(itertools.accumulate(map(operator.itemgetter(0), found), initial=0.0))
        counts = list(itertools.accumulate(map(operator.itemgetter(1), found), initial=0))
        out: list[float] = []
        for first, last in runs:
            start, end = bounds[first], bounds[last]
            count = counts[end] - counts[start]
            out.append((sums[end] - sums[start]) / count if count else 0.0)
        return out
