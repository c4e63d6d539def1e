"""The trained injection detector: spans of untrusted text, their features and scores (pure).

A linear model (logistic regression) over hashed features of one span of text: its words,
pairs of adjacent words (a pair's bucket mixed from its words' buckets, `pair_index`), and
character 3- and 4-grams of each word (so inflected and
non-English words share features), after undoing the usual disguises: NFKC and look-alike
letters, letter-spacing (`i g n o r e`), leetspeak (`1gn0r3`) and base64 blobs, whose
decoded text is read as well. Scripts without spaces (Chinese, Japanese, Korean, Thai) are
read as character pairs. The weights are data (`injection_detector.bin`, built by
`benchmarks/train_injection.py`), loaded by the shell (`client_detector`) and handed in here.

`span_tokens` cuts a text into the pieces that are scored: each line (cut between quoted
JSON strings and at escaped line breaks, and a long line into sentences), with comment and
quote markers taken off, and each block of consecutive non-blank lines (up to `BLOCK_LINES`
lines), whose words are its lines' words in order. Each line also has a feature for its
first word (where an imperative starts). Every piece's tokens are laid end to end and each
span's sum is a difference of running sums over them, so each line is read once and the
per-token work runs in C-speed `map`s. The score of a text is that of its worst span.
"""

from __future__ import annotations

import array
import base64
import binascii
import functools
import itertools
import math
import operator
import re
import struct
import unicodedata
import zlib
from dataclasses import dataclass, field

from rubricate.judge.hidden import CONFUSABLES, INVISIBLE

DETECTOR_VERSION = "rubricate-injection-3"
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
"""The CRCs of the feature prefixes; a feature's bucket continues from them (`feature_index`)."""
_MIXED_LATIN = re.compile(r"[a-z][^\W\d_]*[а-яёα-ω]|[а-яёα-ω][^\W\d_]*[a-z]")
_MARKER_BYTES = frozenset((b"#", b"^"))
_CACHED = 100_000
"""Entries each of a detector's caches (words, lines) holds before it starts over."""
_FIRST = operator.itemgetter(0)
_SECOND = operator.itemgetter(1)
_THIRD = operator.itemgetter(2)
_FOURTH = operator.itemgetter(3)
_ASCII_WORDS = bytes(
    c + 32 if 65 <= c <= 90 else c if 48 <= c <= 57 or 97 <= c <= 122 else 32 for c in range(256)
)
"""ASCII letters lower-cased and digits kept, every other byte a space: `_TOKEN` on ASCII."""
_LEET_BYTES = bytes.maketrans(b"013457", b"oieast")
_BASE64_RUN = re.compile(rb"[A-Za-z0-9+/]{20}")
_MIXED_DIGITS = re.compile(rb"[a-z][0-9]|[0-9][a-z]")
"""A word mixing letters and digits, in text after `_ASCII_WORDS` (where leetspeak may be)."""


Scored = tuple[int, int, float, str]
"""A scored span: first line, last line, probability, text."""
_Word = tuple[float, int, int, int]
"""A word's summed feature weights, its feature count, its bucket (that of `w:word`) and the
part of `pair_index` it gives as a pair's first word."""


@dataclass
class Detector:
    """A trained model: hashed feature weights, a bias and the warning threshold."""

    weights: list[float]
    bias: float
    threshold: float
    version: str = DETECTOR_VERSION
    _words: dict[bytes, _Word] = field(default_factory=dict, repr=False)
    _table: array.array[float] = field(default_factory=lambda: array.array("d"), repr=False)
    """The weights as a flat array (no objects for the garbage collector to walk)."""
    _doubled: array.array[float] = field(default_factory=lambda: array.array("d"), repr=False)
    """The weights twice over, so a pair's bucket needs no mask (`_probabilities`)."""
    _lines: dict[str, tuple[tuple[bytes, ...], int]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._table = array.array("d", self.weights)
        self._doubled = self._table + self._table

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
        tokens = [_utf8(t) for t in tokens_of(text)]
        if not tokens:
            return _sigmoid(self.bias)
        return self._probabilities(tokens, [0, len(tokens)], [(0, 1)])[0]

    def scored(self, text: str) -> list[Scored]:
        """Every span of `text` with its score: (first line, last line, probability, span).

        The tokens of every piece (a line, or a part of one) are laid end to end; a span is
        a run of pieces: one scored line, or a block of lines read one after another."""
        found: list[tuple[int, int, str]] = []
        runs: list[tuple[int, int]] = []
        tokens: list[bytes] = []
        bounds = [0]
        words: list[int] = []
        known = self._lines.get
        for block in _blocks(text):
            first = len(words)
            for number, line in block:
                whole = len(line) <= MAX_SPAN_CHARS and '"' not in line and "\\" not in line
                for piece in (line,) if whole else _pieces(line):  # `_pieces` keeps it whole
                    mine, count = known(piece) or self._line(piece)
                    tokens += mine
                    bounds.append(len(tokens))
                    words.append(count)
                    if count >= MIN_TOKENS:
                        found.append((number, number, piece))
                        runs.append((len(words) - 1, len(words)))
            if 1 < len(block) <= BLOCK_LINES:
                joined = " ".join(line for _n, line in block)
                if len(joined) <= MAX_SPAN_CHARS and sum(words[first:]) >= MIN_TOKENS:
                    found.append((block[0][0], block[-1][0], joined))
                    runs.append((first, len(words)))
        scores = self._probabilities(tokens, bounds, runs)
        return [(a, b, p, span) for (a, b, span), p in zip(found, scores, strict=True)]

    def _probabilities(
        self, tokens: list[bytes], bounds: list[int], runs: list[tuple[int, int]]
    ) -> list[float]:
        """The probability of each run of pieces (piece i is `tokens[bounds[i]:bounds[i+1]]`).

        Running sums over all the tokens, built by C-speed `map`s, give each span's sum as a
        difference: its words' weights (a word's weights cached after its first sight) and
        its pairs' weights (`_doubled[mixed + bucket]` is the weight of `pair_index`); the
        pairs inside a run of pieces are exactly the pairs of its tokens read in order."""
        found = self._found(tokens)
        weight = list(itertools.accumulate(map(_FIRST, found), initial=0.0))
        features = list(itertools.accumulate(map(_SECOND, found), initial=0))
        mixed = map(operator.add, map(_FOURTH, found), map(_THIRD, found[1:]))
        paired = list(itertools.accumulate(map(self._doubled.__getitem__, mixed), initial=0.0))
        out: list[float] = []
        bias = self.bias
        for first, last in runs:
            start, end = bounds[first], bounds[last]
            if end == start:
                out.append(0.0)
                continue
            total = weight[end] - weight[start] + paired[end - 1] - paired[start]
            count = features[end] - features[start] + end - start - 1
            out.append(_sigmoid(bias + total / math.sqrt(count)))
        return out

    def _found(self, tokens: list[bytes]) -> list[_Word]:
        """Each token's word entry, the missing ones computed first (`_word`)."""
        words = self._words
        if all(map(words.__contains__, tokens)):
            return list(map(words.__getitem__, tokens))
        missing = {t for t in tokens if t not in words}
        if len(words) + len(missing) > _CACHED:
            words.clear()
            missing = set(tokens)
        for token in missing:
            words[token] = self._word(token)
        return list(map(words.__getitem__, tokens))

    def _word(self, token: bytes) -> _Word:
        """A word's summed feature weights, feature count, bucket and pair part (its
        n-grams cut, hashed and looked up by C-speed `map`s)."""
        table = self._table
        bucket = zlib.crc32(token, _WORD_CRC) & _MASK
        total = table[bucket]
        count = 1
        if token[:1] not in _MARKER_BYTES:
            if token.isascii():
                padded = b"<" + token + b">"
                slices = _gram_slices(len(padded))
                grams = map(padded.__getitem__, slices)
            else:
                text = f"<{token.decode('utf-8', 'surrogatepass')}>"
                slices = _gram_slices(len(text))
                grams = map(_utf8, map(text.__getitem__, slices))
            hashed = map(zlib.crc32, grams, itertools.repeat(_GRAM_CRC))
            total += sum(map(table.__getitem__, map(_MASK.__and__, hashed)))
            count += len(slices)
        return (total, count, bucket, (bucket * 31) & _MASK)

    def _line(self, line: str) -> tuple[tuple[bytes, ...], int]:
        """One line's tokens and word count (cached; a tuple of bytes is nothing the garbage
        collector walks)."""
        tokens, count = _line_bytes(line)
        known = (tuple(tokens), count)
        if len(self._lines) >= _CACHED:
            self._lines.clear()
        self._lines[line] = known
        return known

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
    """The hashed bucket of one feature string (stable across processes): the CRC of a word
    or character n-gram; a pair `p:a b` mixes the buckets of `w:a` and `w:b`."""
    if feature.startswith("p:"):
        first, second = feature[2:].split(" ")
        return pair_index(feature_index(f"w:{first}"), feature_index(f"w:{second}"))
    return zlib.crc32(feature.encode("utf-8", "surrogatepass")) & _MASK


def pair_index(first: int, second: int) -> int:
    """The bucket of the pair of two words with these buckets: the buckets are CRCs, so a
    linear mix spreads pairs as well as a hash (and costs three integer operations)."""
    return (first * 31 + second) & _MASK


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


@functools.cache
def _gram_slices(size: int) -> tuple[slice, ...]:
    """The slices of a padded word of this length that are its 3-grams, then its 4-grams."""
    return tuple(slice(i, i + n) for n in (3, 4) for i in range(size - n + 1))


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _line_bytes(line: str) -> tuple[list[bytes], int]:
    """`line_tokens(line)` as UTF-8 bytes, and its `word_count`.

    A plain ASCII line (no escapes, no base64 run, no letter-spacing) is cut by one
    `bytes.translate` and `split`, leetspeak undone where a word mixes letters and digits;
    any other line is read by `line_tokens`. Both give the same tokens
    (`tests/judge/test_detector.py`)."""
    if line.isascii() and "\\" not in line:
        raw = line.encode("ascii")
        lowered = raw.translate(_ASCII_WORDS)
        tokens = lowered.split()
        if not tokens:
            return tokens, 0
        spaced = min(map(len, tokens)) == 1 and _SPACED.search(line.lower())
        blob = len(raw) >= 20 and _BASE64_RUN.search(raw)
        if not spaced and not blob:
            words = len(tokens)
            if _MIXED_DIGITS.search(lowered):
                leet = [t for t in tokens if not (t.isalpha() or t.isdigit())]
                tokens = [t.translate(_LEET_BYTES) if t in leet else t for t in tokens]
                tokens += [b"#leet"] * len(leet)
            tokens.append(b"^" + tokens[0])
            return tokens, words
    found = line_tokens(line)
    return [_utf8(t) for t in found], word_count(found)


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
