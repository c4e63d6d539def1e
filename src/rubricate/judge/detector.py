"""The trained injection detector: spans of untrusted text, their features and scores (pure).

A linear model (logistic regression) over hashed features of one span of text: its words,
pairs of adjacent words, and character 3- and 4-grams of each word (so inflected and
non-English words share features), after undoing the usual disguises: NFKC and look-alike
letters, letter-spacing (`i g n o r e`), leetspeak (`1gn0r3`) and base64 blobs, whose
decoded text is read as well. Scripts without spaces (Chinese, Japanese, Korean, Thai) are
read as character pairs. The weights are data (`injection_detector.bin`, built by
`benchmarks/train_injection.py`), loaded by the shell (`client_detector`) and handed in here.

`spans` cuts a text into the pieces that are scored: each block of consecutive non-blank
lines (up to `BLOCK_LINES` lines) and each line of it, with comment and quote markers taken
off; a long line is cut into sentences. The score of a text is that of its worst span.
"""

from __future__ import annotations

import array
import base64
import binascii
import itertools
import math
import re
import struct
import unicodedata
import zlib
from dataclasses import dataclass, field

from rubricate.judge.hidden import CONFUSABLES, INVISIBLE

DETECTOR_VERSION = "rubricate-injection-1"
"""Changes whenever the weights or the features change; part of the judge's cache key."""
HASH_BITS = 19
_MASK = (1 << HASH_BITS) - 1
MAGIC = b"RBINJ1"
BLOCK_LINES = 6
MAX_SPAN_CHARS = 600
MIN_TOKENS = 3
_TOKEN = re.compile(r"[^\W_]+")
_UNSPACED = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_SPACED = re.compile(r"(?<![^\W_])(?:[^\W_][ \t.\-_*|/]{1,2}){3,}[^\W_](?![^\W_])")
_SEPARATORS = re.compile(r"[ \t.\-_*|/]")
_BASE64 = re.compile(r"[A-Za-z0-9+/]{20,}={0,2}")
_LEET = str.maketrans("013457@$", "oieastas")
_DIGIT = re.compile(r"\d")
_ALPHA = re.compile(r"[^\W\d_]")
_MARKERS = re.compile(r"^[ \t]*(?:[#;>*+|-]+|//+|/\*+|\*/|<!--|-->|--|\"\"\"|''')[ \t]*")
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+")
_ESCAPES = re.compile(r"\\[nrt]")
_MIXED_LATIN = re.compile(r"[a-z][^\W\d_]*[а-яёα-ω]|[а-яёα-ω][^\W\d_]*[a-z]")


Scored = tuple[int, int, float, str]
"""A scored span: first line, last line, probability, text."""


@dataclass
class Detector:
    """A trained model: hashed feature weights, a bias and the warning threshold."""

    weights: list[float]
    bias: float
    threshold: float
    version: str = DETECTOR_VERSION
    _words: dict[str, tuple[float, int]] = field(default_factory=dict, repr=False)
    _pairs: dict[str, float] = field(default_factory=dict, repr=False)

    @classmethod
    def from_bytes(cls, data: bytes) -> Detector:
        """Read the weights file: magic, version, bias, threshold, scale, int16 weights (zlib).

        Raises ValueError when the data is not a weights file of this detector's version."""
        try:
            raw = zlib.decompress(data)
        except zlib.error as exc:
            raise ValueError(f"not an injection detector weights file ({exc})") from exc
        if not raw.startswith(MAGIC):
            raise ValueError("not an injection detector weights file")
        size = raw[len(MAGIC)]
        start = len(MAGIC) + 1
        version = raw[start : start + size].decode("ascii")
        if version != DETECTOR_VERSION:
            raise ValueError(f"weights are {version}, this code reads {DETECTOR_VERSION}")
        bias, threshold, scale = struct.unpack_from("<ddd", raw, start + size)
        quantised = array.array("h")
        quantised.frombytes(raw[start + size + 24 :])
        if len(quantised) != 1 << HASH_BITS:
            raise ValueError("injection detector weights have the wrong size")
        return cls([w * scale for w in quantised], bias, threshold, version)

    def to_bytes(self) -> bytes:
        """The weights file `from_bytes` reads (weights quantised to 16 bits)."""
        scale = max(max(map(abs, self.weights)), 1e-9) / 32767
        quantised = array.array("h", (round(w / scale) for w in self.weights))
        version = self.version.encode("ascii")
        header = MAGIC + bytes([len(version)]) + version
        header += struct.pack("<ddd", self.bias, self.threshold, scale)
        return zlib.compress(header + quantised.tobytes(), 9)

    def score(self, text: str) -> float:
        """The probability that one span is an injection."""
        tokens = tokens_of(text)
        if not tokens:
            return _sigmoid(self.bias)
        total = 0.0
        count = len(tokens) - 1
        for token in tokens:
            known = self._words.get(token)
            if known is None:
                grams = word_features(token)
                known = (sum(self.weights[feature_index(g)] for g in grams), len(grams))
                if len(self._words) < 200_000:
                    self._words[token] = known
            total += known[0]
            count += known[1]
        known_pairs = self._pairs
        for pair in pairs(tokens):
            weight = known_pairs.get(pair)
            if weight is None:
                weight = self.weights[feature_index(pair)]
                if len(known_pairs) < 400_000:
                    known_pairs[pair] = weight
            total += weight
        return _sigmoid(self.bias + total / math.sqrt(count))

    def scored(self, text: str) -> list[Scored]:
        """Every span of `text` with its score: (first line, last line, probability, span)."""
        return [(first, last, self.score(span), span) for first, last, span in spans(text)]

    def flagged(self, scored: list[Scored]) -> list[tuple[int, float, str]]:
        """The flagged spans of `scored` (line, probability, span), the highest per first line;
        a block of lines counts only where none of its own lines is flagged."""
        hits = [s for s in scored if s[2] >= self.threshold]
        single = {first for first, last, _p, _s in hits if first == last}
        best: dict[int, tuple[float, str]] = {}
        for first, last, probability, span in hits:
            inside = first != last and any(n in single for n in range(first, last + 1))
            if not inside and probability > best.get(first, (0.0, ""))[0]:
                best[first] = (probability, span)
        return [(line, p, span) for line, (p, span) in best.items()]

    def worst(self, text: str) -> tuple[float, int, str]:
        """The highest-scoring span of `text`: (probability, first line, span)."""
        best = (0.0, 1, "")
        for first, _last, probability, span in self.scored(text):
            if probability > best[0]:
                best = (probability, first, span)
        return best

    def line_scores(self, scored: list[Scored]) -> dict[int, float]:
        """Each line's highest score among the `scored` spans that cover it."""
        found: dict[int, float] = {}
        for first, last, probability, _span in scored:
            for line in range(first, last + 1):
                found[line] = max(found.get(line, 0.0), probability)
        return found


def _sigmoid(value: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(min(value, 60.0), -60.0)))


def feature_index(feature: str) -> int:
    """The hashed bucket of one feature string (stable across processes)."""
    return zlib.crc32(feature.encode("utf-8", "surrogatepass")) & _MASK


_GRAMS: dict[str, tuple[str, ...]] = {}


def word_features(token: str) -> tuple[str, ...]:
    """A word's features: the word itself and its character 3- and 4-grams (with boundaries)."""
    found = _GRAMS.get(token)
    if found is None:
        padded = f"<{token}>"
        grams = [f"w:{token}"]
        for size in (3, 4):
            grams += [f"c:{padded[i : i + size]}" for i in range(len(padded) - size + 1)]
        found = tuple(grams)
        if len(_GRAMS) < 200_000:
            _GRAMS[token] = found
    return found


def pairs(tokens: list[str]) -> list[str]:
    """The pair features of adjacent tokens."""
    return [f"p:{a} {b}" for a, b in itertools.pairwise(tokens)]


def features(text: str) -> list[str]:
    """Every feature of one span, with repeats (what training sees; `score` sums the same)."""
    tokens = tokens_of(text)
    found = [g for token in tokens for g in word_features(token)]
    return found + pairs(tokens)


def tokens_of(text: str) -> list[str]:
    """The words of a span after undoing disguises, case-folded; unspaced scripts as pairs."""
    plain = unicodedata.normalize("NFKC", INVISIBLE.sub("", text)).casefold()
    if "\\" in plain:
        plain = _ESCAPES.sub(" ", plain)
    extra: list[str] = []
    if _SPACED.search(plain):
        plain = _SPACED.sub(lambda m: " " + _SEPARATORS.sub("", m.group(0)) + " ", plain)
        extra.append("spaced")
    if "=" in plain or len(plain) >= 20:
        for blob in _BASE64.findall(text):
            decoded = _decoded(blob)
            if decoded:
                plain += " " + decoded.casefold()
                extra.append("base64")
    tokens: list[str] = []
    for token in _TOKEN.findall(plain):
        if token.isascii() and token.isalpha():
            tokens.append(token)
        elif _UNSPACED.search(token):
            tokens += _unspaced(token)
        elif not token.isascii() and _MIXED_LATIN.search(token):
            tokens.append(token.translate(CONFUSABLES))
        elif _DIGIT.search(token) and _ALPHA.search(token) and not token.isdigit():
            tokens.append(token.translate(_LEET))
            extra.append("leet")
        else:
            tokens.append(token)
    return tokens + [f"#{e}" for e in extra]


def _unspaced(token: str) -> list[str]:
    """Characters pairs of a run in a script without spaces (a lone character stays itself)."""
    if len(token) < 2:
        return [token]
    return [token[i : i + 2] for i in range(len(token) - 1)]


def _decoded(blob: str) -> str:
    """The text a base64 blob encodes, or '' when it is not mostly printable text."""
    try:
        raw = base64.b64decode(blob + "=" * (-len(blob) % 4), validate=True)
    except (binascii.Error, ValueError):
        return ""
    text = raw.decode("utf-8", "replace")
    printable = sum(c.isprintable() for c in text)
    return text if " " in text and printable >= 0.9 * len(text) else ""


def spans(text: str) -> list[tuple[int, int, str]]:
    """The scored pieces of `text` as (first line, last line, text): blocks and their lines."""
    found: list[tuple[int, int, str]] = []
    block: list[tuple[int, str]] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = _MARKERS.sub("", raw).strip()
        if line:
            block.append((number, line))
            continue
        found += _block_spans(block)
        block = []
    return found + _block_spans(block)


def _block_spans(block: list[tuple[int, str]]) -> list[tuple[int, int, str]]:
    if not block:
        return []
    out: list[tuple[int, int, str]] = []
    for number, line in block:
        if len(line) <= MAX_SPAN_CHARS:
            out.append((number, number, line))
            continue
        out += [(number, number, s) for s in _chunks(line)]
    if 1 < len(block) <= BLOCK_LINES:
        joined = " ".join(line for _n, line in block)
        if len(joined) <= MAX_SPAN_CHARS:
            out.append((block[0][0], block[-1][0], joined))
    return [s for s in out if len(_TOKEN.findall(s[2])) >= MIN_TOKENS or _UNSPACED.search(s[2])]


def _chunks(line: str) -> list[str]:
    """A long line as sentences, each cut to `MAX_SPAN_CHARS` at most."""
    out: list[str] = []
    for sentence in _SENTENCE.split(line):
        out += [sentence[i : i + MAX_SPAN_CHARS] for i in range(0, len(sentence), MAX_SPAN_CHARS)]
    return out
