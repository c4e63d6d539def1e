"""The trained injection detector: spans of untrusted text, their features and scores (pure).

A linear model (logistic regression) over hashed features of one span of text: its words,
pairs of adjacent words, and character 3- and 4-grams of each word (so inflected and
non-English words share features), after undoing the usual disguises: NFKC and look-alike
letters, letter-spacing (`i g n o r e`), leetspeak (`1gn0r3`) and base64 blobs, whose
decoded text is read as well. Scripts without spaces (Chinese, Japanese, Korean, Thai) are
read as character pairs. The weights are data (`injection_detector.bin`, built by
`benchmarks/train_injection.py`), loaded by the shell (`client_detector`) and handed in here.

`span_tokens` cuts a text into the pieces that are scored: each line (cut between quoted
JSON strings and at escaped line breaks, and a long line into sentences), with comment and
quote markers taken off, and each block of consecutive non-blank lines (up to `BLOCK_LINES`
lines), whose words are its lines' words in order. Each line also has a feature for its
first word (where an imperative starts). A block's score is built from its lines' sums, so
each line is read once. The score of a text is that of its worst span.
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

DETECTOR_VERSION = "rubricate-injection-2"
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
_MARKER_TOKENS = frozenset("#^")
_CUT = re.compile(r'"\s*[:,]\s*"|\\[nr]')
_MARKER_STARTS = frozenset("#;>*+|-/\"'<")
"""The first characters of the comment and quote markers `_MARKERS` takes off."""
_WORD_CRC = zlib.crc32(b"w:")
_GRAM_CRC = zlib.crc32(b"c:")
_PAIR_CRC = zlib.crc32(b"p:")
"""The CRCs of the feature prefixes; a feature's bucket continues from them (`feature_index`)."""
_MIXED_LATIN = re.compile(r"[a-z][^\W\d_]*[а-яёα-ω]|[а-яёα-ω][^\W\d_]*[a-z]")


Scored = tuple[int, int, float, str]
"""A scored span: first line, last line, probability, text."""
_Word = tuple[float, int, int, bytes]
"""A word's summed feature weights, its feature count, the CRC of `p:word ` (where its pairs'
CRCs start) and its UTF-8 bytes."""
_Sums = tuple[float, int, str, str, int]
"""A span's summed feature weights, its feature count, its first and last token, and its
`word_count`."""


@dataclass
class Detector:
    """A trained model: hashed feature weights, a bias and the warning threshold."""

    weights: list[float]
    bias: float
    threshold: float
    version: str = DETECTOR_VERSION
    _words: dict[str, _Word] = field(default_factory=dict, repr=False)
    _lines: dict[str, _Sums] = field(default_factory=dict, repr=False)

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
        """The probability that one span of text (read as a single line) is an injection."""
        sums = self._sums(tokens_of(text))
        return self._probability(sums) if sums[1] else _sigmoid(self.bias)

    def _sums(self, tokens: list[str]) -> _Sums:
        """The summed weights of the tokens' word and pair features, and how many there are.

        A pair's bucket is the CRC of `p:a b`, continued from the CRC of `p:a ` kept with `a`,
        so each pair costs one checksum of `b`'s bytes and no new string."""
        if not tokens:
            return (0.0, 0, "", "", 0)
        total = 0.0
        count = len(tokens) - 1
        words = self._words
        weights = self.weights
        before = -1
        for token in tokens:
            known = words.get(token) or self._word(token)
            total += known[0]
            count += known[1]
            if before >= 0:
                total += weights[zlib.crc32(known[3], before) & _MASK]
            before = known[2]
        return (total, count, tokens[0], tokens[-1], word_count(tokens))

    def _word(self, token: str) -> _Word:
        """A word's summed feature weights, feature count, pair prefix CRC and bytes (cached)."""
        raw = token.encode("utf-8", "surrogatepass")
        weights = self.weights
        found = [weights[zlib.crc32(raw, _WORD_CRC) & _MASK]]
        if token[:1] not in _MARKER_TOKENS:
            if token.isascii():
                padded = b"<" + raw + b">"
                grams = [padded[i : i + 3] for i in range(len(padded) - 2)]
                grams += [padded[i : i + 4] for i in range(len(padded) - 3)]
            else:
                text = f"<{token}>"
                grams = [
                    text[i : i + 3].encode("utf-8", "surrogatepass") for i in range(len(text) - 2)
                ]
                grams += [
                    text[i : i + 4].encode("utf-8", "surrogatepass") for i in range(len(text) - 3)
                ]
            found += [weights[zlib.crc32(g, _GRAM_CRC) & _MASK] for g in grams]
        known = (sum(found), len(found), zlib.crc32(raw + b" ", _PAIR_CRC), raw)
        if len(self._words) < 200_000:
            self._words[token] = known
        return known

    def _pair(self, a: str, b: str) -> float:
        first = self._words.get(a) or self._word(a)
        second = self._words.get(b) or self._word(b)
        return self.weights[zlib.crc32(second[3], first[2]) & _MASK]

    def _line(self, line: str) -> _Sums:
        known = self._lines.get(line)
        if known is None:
            known = self._sums(line_tokens(line))
            if len(self._lines) < 100_000:
                self._lines[line] = known
        return known

    def scored(self, text: str) -> list[Scored]:
        """Every span of `text` with its score: (first line, last line, probability, span)."""
        out: list[Scored] = []
        for block in _blocks(text):
            parts = []
            for number, line in block:
                for piece in _pieces(line):
                    sums = self._line(piece)
                    parts.append(sums)
                    if sums[4] >= MIN_TOKENS:
                        out.append((number, number, self._probability(sums), piece))
            if 1 < len(block) <= BLOCK_LINES:
                joined = " ".join(line for _n, line in block)
                if len(joined) <= MAX_SPAN_CHARS:
                    sums = self._joined(parts)
                    if sums[4] >= MIN_TOKENS:
                        out.append((block[0][0], block[-1][0], self._probability(sums), joined))
        return out

    def _joined(self, parts: list[_Sums]) -> _Sums:
        """The sums of the lines' tokens read one after another (pairs across lines added)."""
        kept = [p for p in parts if p[1]]
        if not kept:
            return (0.0, 0, "", "", 0)
        total = sum(p[0] for p in kept)
        count = sum(p[1] for p in kept) + len(kept) - 1
        for before, after in itertools.pairwise(kept):
            total += self._pair(before[3], after[2])
        return (total, count, kept[0][2], kept[-1][3], sum(p[4] for p in kept))

    def _probability(self, sums: _Sums) -> float:
        return _sigmoid(self.bias + sums[0] / math.sqrt(sums[1])) if sums[1] else 0.0

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


def _sigmoid(value: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(min(value, 60.0), -60.0)))


def feature_index(feature: str) -> int:
    """The hashed bucket of one feature string (stable across processes)."""
    return zlib.crc32(feature.encode("utf-8", "surrogatepass")) & _MASK


_GRAMS: dict[str, tuple[str, ...]] = {}


def word_features(token: str) -> tuple[str, ...]:
    """A word's features: the word itself and its character 3- and 4-grams (with boundaries);
    a marker token (`#base64`, `^ignore` for a line's first word) is only itself."""
    found = _GRAMS.get(token)
    if found is None:
        grams = [f"w:{token}"]
        if token[:1] not in _MARKER_TOKENS:
            padded = f"<{token}>"
            for size in (3, 4):
                grams += [f"c:{padded[i : i + size]}" for i in range(len(padded) - size + 1)]
        found = tuple(grams)
        if len(_GRAMS) < 200_000:
            _GRAMS[token] = found
    return found


def pairs(tokens: list[str]) -> list[str]:
    """The pair features of adjacent tokens."""
    return [f"p:{a} {b}" for a, b in itertools.pairwise(tokens)]


def features_of(tokens: list[str]) -> list[str]:
    """Every feature of a span's tokens, with repeats (training sees these; scoring sums them)."""
    return [g for token in tokens for g in word_features(token)] + pairs(tokens)


def features(text: str) -> list[str]:
    """Every feature of `text` read as one span (`Detector.score`)."""
    return features_of(tokens_of(text))


def line_tokens(line: str) -> list[str]:
    """A line's tokens and a marker for its first word (`^word`)."""
    tokens = tokens_of(line)
    if tokens and tokens[0][:1] != "#":
        tokens.append(f"^{tokens[0]}")
    return tokens


def tokens_of(text: str) -> list[str]:
    """The words of a span after undoing disguises, case-folded; unspaced scripts as pairs."""
    if text.isascii():  # nothing invisible, already NFKC, and casefold is lower
        plain = text.lower()
    else:
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
    if plain.isascii():
        tokens = _TOKEN.findall(plain)
        if _DIGIT.search(plain):  # else every token is letters only
            for i, token in enumerate(tokens):
                if not (token.isalpha() or token.isdigit()):
                    tokens[i] = token.translate(_LEET)
                    extra.append("leet")
        return tokens + [f"#{e}" for e in extra] if extra else tokens
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
    """The scored pieces of `text` as (first line, last line, text): lines and blocks."""
    return [(first, last, span) for first, last, span, _tokens in span_tokens(text)]


def span_tokens(text: str) -> list[tuple[int, int, str, list[str]]]:
    """The scored pieces of `text` with their tokens, as `Detector.scored` reads them: each
    line (or sentence of a long line), then each short block as its lines' tokens in order."""
    found: list[tuple[int, int, str, list[str]]] = []
    for block in _blocks(text):
        parts: list[list[str]] = []
        for number, line in block:
            for piece in _pieces(line):
                tokens = line_tokens(piece)
                parts.append(tokens)
                if word_count(tokens) >= MIN_TOKENS:
                    found.append((number, number, piece, tokens))
        if 1 < len(block) <= BLOCK_LINES:
            joined = " ".join(line for _n, line in block)
            tokens = [t for p in parts for t in p]
            enough = sum(map(word_count, parts)) >= MIN_TOKENS
            if len(joined) <= MAX_SPAN_CHARS and enough:
                found.append((block[0][0], block[-1][0], joined, tokens))
    return found


def _blocks(text: str) -> list[list[tuple[int, str]]]:
    """Runs of consecutive non-blank lines (numbered from 1), comment and quote markers off."""
    found: list[list[tuple[int, str]]] = []
    block: list[tuple[int, str]] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        marked = raw.lstrip(" \t")[:1] in _MARKER_STARTS  # else `_MARKERS` cannot match
        line = _MARKERS.sub("", raw).strip() if marked else raw.strip()
        if line:
            block.append((number, line))
        elif block:
            found.append(block)
            block = []
    return [*found, block] if block else found


def _pieces(line: str) -> list[str]:
    """A line as the pieces scored on their own: cut between quoted JSON strings and at
    escaped line breaks, and a long piece cut into sentences."""
    cut = _CUT.split(line) if '"' in line or "\\" in line else [line]
    if len(cut) == 1:
        return [line] if len(line) <= MAX_SPAN_CHARS else _chunks(line)
    found: list[str] = []
    for part in cut:
        part = part.strip(' "{}[],')
        if part:
            found += [part] if len(part) <= MAX_SPAN_CHARS else _chunks(part)
    return found


def word_count(tokens: list[str]) -> int:
    """The words among the tokens, marker tokens left out; text in a script without spaces
    counts as `MIN_TOKENS` (a span needs `MIN_TOKENS` to be scored)."""
    words = [t for t in tokens if t[:1] not in _MARKER_TOKENS]
    if len(words) < MIN_TOKENS and any(_UNSPACED.search(t) for t in words):
        return MIN_TOKENS
    return len(words)


def _chunks(line: str) -> list[str]:
    """A long line as sentences, each cut to `MAX_SPAN_CHARS` at most."""
    out: list[str] = []
    for sentence in _SENTENCE.split(line):
        out += [sentence[i : i + MAX_SPAN_CHARS] for i in range(0, len(sentence), MAX_SPAN_CHARS)]
    return out
