"""The trained injection detector: spans of untrusted text, their features and scores (pure).

A linear model (logistic regression) over hashed features of one span of text: its words,
pairs of adjacent words (a pair's bucket mixed from its words' buckets, `pair_index`), and
character 3- and 4-grams of each word (so inflected and non-English words share features),
read from the tokens `judge.detector_text` gives (disguises undone). The weights are data
(`injection_detector.bin`, built by `benchmarks/train_injection.py`), loaded by the shell
(`client_detector`) and handed in here.

`detector_text.span_tokens` cuts a text into the pieces that are scored: each line (cut
between quoted JSON strings and at escaped line breaks, and a long line into sentences),
with comment and quote markers taken off, and each block of consecutive non-blank lines (up
to `BLOCK_LINES` lines), whose words are its lines' words in order. Each line also has a
feature for its first word (where an imperative starts). Every piece's tokens are laid end
to end and each span's sum is a difference of running sums over them, so each line is read
once and the per-token work runs in C-speed `map`s (or, for a long text where numpy is
installed, in numpy: `detector_numpy`, equal bit for bit). The score of a text is that of its
worst span.

The running sums of a text's later lines continue from those of its earlier lines (`Carry`),
so a text cut after a blank line (where no span crosses) can be scored in two parts, each part
where the other left off, with every probability equal bit for bit to the whole text's
(`scored_from`; `judge.scan_shares`).
"""

from __future__ import annotations

import array
import contextlib
import functools
import gc
import itertools
import math
import operator
import struct
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from rubricate.judge.detector_kinds import pack, unpack
from rubricate.judge.detector_text import (
    BLOCK_LINES,
    MARKER_TOKENS,
    MAX_SPAN_CHARS,
    MIN_TOKENS,
    line_bytes,
    pieces,
    plain_lines,
    stripped_lines,
    tokens_of,
    utf8,
)

DETECTOR_VERSION = "rubricate-injection-5"
"""Changes whenever the weights or the features change; part of the judge's cache key."""
HASH_BITS = 19
_MASK = (1 << HASH_BITS) - 1
MAGIC = b"RBINJ1"
GROUPED_MAGIC = b"RBINJ2"
"""A weights file with a threshold per kind of text (`detector_kinds`) after the header."""
_WORD_CRC = zlib.crc32(b"w:")
_GRAM_CRC = zlib.crc32(b"c:")
"""The CRCs of the feature prefixes; a feature's bucket continues from them (`feature_index`)."""
_MARKER_BYTES = frozenset((b"#", b"^"))
_CACHED = 100_000
"""Entries each of a detector's caches (words, lines) holds before it starts over."""
NUMPY_TOKENS = 50_000
"""Tokens from which a text's margins are computed with numpy (equal to the pure Python
ones, faster on a long text once numpy is imported) when numpy can be imported."""
_FIRST = operator.itemgetter(0)
_SECOND = operator.itemgetter(1)
_THIRD = operator.itemgetter(2)
_FOURTH = operator.itemgetter(3)
_GETITEM = operator.attrgetter("__getitem__")
_ONES = itertools.repeat(1)
_repeat = itertools.repeat


Scored = tuple[int, int, float, str]
"""A scored span: first line, last line, probability, text."""


@dataclass(frozen=True)
class Carry:
    """Where the running sums stand after some tokens: the sums of their words' weights and of
    their pairs' weights, and the pair part of the last token (None before the first)."""

    weight: float = 0.0
    paired: float = 0.0
    part: int | None = None


START = Carry()
"""The running sums before a text's first token."""
Carried = Carry | Callable[[], Carry]
"""Where the running sums stand before a text, or how to get it once its words are read (so a
text may be read while the lines before it are still being summed elsewhere)."""
_Word = tuple[float, int, int, int]
"""A word's summed feature weights, its feature count, its bucket (that of `w:word`) and the
part of `pair_index` it gives as a pair's first word."""
_Margins = Callable[
    [
        Sequence[_Word],
        Iterable[int],
        int,
        list[int],
        list[tuple[int, int]],
        "array.array[float]",
        float,
        float,
        float,
    ],
    tuple[list[float], float, float],
]
"""`detector_numpy.margins`: words, each token's word row, token count, bounds, runs, the
doubled weights, the bias, the two running sums' first values; the margins and the sums' last
values."""


@dataclass
class Detector:
    """A trained model: hashed feature weights, a bias and the warning threshold (for every
    span, or per kind of text it is found in: `thresholds`, `detector_kinds`)."""

    weights: list[float]
    bias: float
    threshold: float
    version: str = DETECTOR_VERSION
    thresholds: dict[str, float] = field(default_factory=dict)
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
        """Read the weights file: magic, version, bias, threshold, scale, (`GROUPED_MAGIC`:
        the thresholds per kind, `detector_kinds.pack`), int16 weights (zlib).

        Raises ValueError when the data is not a weights file of this detector's version."""
        try:
            raw = zlib.decompress(data)
        except zlib.error as exc:
            raise ValueError(f"not an injection detector weights file ({exc})") from exc
        if not raw.startswith((MAGIC, GROUPED_MAGIC)):
            raise ValueError("not an injection detector weights file")
        size = raw[len(MAGIC)]
        start = len(MAGIC) + 1
        version = raw[start : start + size].decode("ascii")
        if version != DETECTOR_VERSION:
            raise ValueError(f"weights are {version}, this code reads {DETECTOR_VERSION}")
        bias, threshold, scale = struct.unpack_from("<ddd", raw, start + size)
        kinds: dict[str, float] = {}
        end = start + size + 24
        if raw.startswith(GROUPED_MAGIC):
            kinds, end = unpack(raw, end)
        quantised = array.array("h")
        quantised.frombytes(raw[end:])
        if len(quantised) != 1 << HASH_BITS:
            raise ValueError("injection detector weights have the wrong size")
        return cls([w * scale for w in quantised], bias, threshold, version, kinds)

    def to_bytes(self) -> bytes:
        """The weights file `from_bytes` reads (weights quantised to 16 bits)."""
        scale = max(max(map(abs, self.weights)), 1e-9) / 32767
        quantised = array.array("h", (round(w / scale) for w in self.weights))
        version = self.version.encode("ascii")
        magic = GROUPED_MAGIC if self.thresholds else MAGIC
        header = magic + bytes([len(version)]) + version
        header += struct.pack("<ddd", self.bias, self.threshold, scale)
        header += pack(self.thresholds) if self.thresholds else b""
        return zlib.compress(header + quantised.tobytes(), 9)

    def score(self, text: str) -> float:
        """The probability that one span of text (read as a single line) is an injection."""
        tokens = [utf8(t) for t in tokens_of(text)]
        if not tokens:
            return _sigmoid(self.bias)
        return self._probabilities(tokens, [0, len(tokens)], [(0, 1)], START)[0][0]

    def scored(self, text: str) -> list[Scored]:
        """Every span of `text` with its score: (first line, last line, probability, span).

        The tokens of every piece (a line, or a part of one) are laid end to end; a span is
        a run of pieces: one scored line, or a block of lines read one after another. The
        garbage collector is paused meanwhile: the work allocates many small objects and no
        cycles, and its passes over a large process cost a third of the time."""
        return self.scored_from(text)[0]

    def scored_from(self, text: str, carry: Carried = START) -> tuple[list[Scored], Carry]:
        """`scored(text)`, for a text that continues one whose running sums ended at `carry`
        (after a blank line: no span crosses into `text`), and where its own sums end. A text
        cut after a blank line and scored in two parts, the second from the first's carry,
        gives the whole text's spans with the same probabilities (line numbers counted from
        each part's first line). A callable `carry` is called once the text's words are read
        and learnt, just before its sums are added up."""
        with _collector_paused():
            return self._scored(text, carry)

    def _scored(self, text: str, carry: Carried) -> tuple[list[Scored], Carry]:
        found: list[tuple[int, int, str]] = []
        runs: list[tuple[int, int]] = []
        tokens: list[bytes] = []
        bounds = [0]
        words: list[int] = []
        block: list[str] = []
        start = 0
        """The first piece (index into `words`) of the block of lines being read."""
        lines = stripped_lines(text)
        plains = plain_lines(lines)
        lines.append("")
        plains.append(None)
        for number, (line, plain) in enumerate(zip(lines, plains, strict=True), start=1):
            if line:
                if not block:
                    start = len(words)
                block.append(line)
                if plain is None:
                    parts = self._parts(line)
                else:  # `line_bytes(line)`, read with every other plain line: its tokens here
                    if plain:
                        tokens += plain
                        tokens.append(b"^" + plain[0])
                    parts = ((line, (), len(plain)),)
                for piece, mine, count in parts:
                    tokens += mine
                    bounds.append(len(tokens))
                    words.append(count)
                    if count >= MIN_TOKENS:
                        found.append((number, number, piece))
                        runs.append((len(words) - 1, len(words)))
                continue
            if 1 < len(block) <= BLOCK_LINES:
                joined = " ".join(block)
                if len(joined) <= MAX_SPAN_CHARS and sum(words[start:]) >= MIN_TOKENS:
                    found.append((number - len(block), number - 1, joined))
                    runs.append((start, len(words)))
            block = []
        scores, after = self._probabilities(tokens, bounds, runs, carry)
        return [(a, b, p, span) for (a, b, span), p in zip(found, scores, strict=True)], after

    def _parts(self, line: str) -> Sequence[tuple[str, Sequence[bytes], int]]:
        """The pieces of a line that is not plain (`plain_lines`), each with its tokens and
        word count (`line_bytes`, cached)."""
        whole = len(line) <= MAX_SPAN_CHARS and '"' not in line and "\\" not in line
        known = self._lines.get
        return [
            (piece, *(known(piece) or self._line(piece)))
            for piece in ((line,) if whole else pieces(line))  # `pieces` keeps it whole
        ]

    def _probabilities(
        self, tokens: list[bytes], bounds: list[int], runs: list[tuple[int, int]], carried: Carried
    ) -> tuple[list[float], Carry]:
        """The probability of each run of pieces (piece i is `tokens[bounds[i]:bounds[i+1]]`):
        its margin (`_margins`, or numpy's equal `detector_numpy.margins` for a long text when
        numpy can be imported) through the sigmoid; and where the running sums end."""
        self._learn(tokens)
        carry = carried() if callable(carried) else carried
        if not tokens:
            return _sigmoid_of(_repeat(self.bias, len(runs))), carry
        vectorised = _numpy_margins() if len(tokens) >= NUMPY_TOKENS else None
        last = self._words[tokens[-1]][3]
        if vectorised is None:
            margins, weight, paired = self._margins(tokens, bounds, runs, carry)
            return _sigmoid_of(margins), Carry(weight[-1], paired[-1], last)
        rows = dict(zip(dict.fromkeys(tokens), itertools.count()))
        words = list(map(self._words.__getitem__, rows))
        rowed = map(rows.__getitem__, tokens)
        size, first = len(tokens), self._first_paired(carry, words[0])
        found = vectorised(
            words, rowed, size, bounds, runs, self._doubled, self.bias, carry.weight, first
        )
        return _sigmoid_of(found[0]), Carry(found[1], found[2], last)

    def _first_paired(self, carry: Carry, first: _Word) -> float:
        """The pairs' running sum at a text's first token: the carried sum and the weight of
        the pair the last token before makes with it."""
        if carry.part is None:
            return carry.paired
        return carry.paired + self._doubled[carry.part + first[2]]

    def _margins(
        self, tokens: list[bytes], bounds: list[int], runs: list[tuple[int, int]], carry: Carry
    ) -> tuple[Iterator[float], list[float], list[float]]:
        """The margin of each run of pieces, from running sums over all the tokens (built by
        C-speed `map`s, continuing from `carry`), each span's sum a difference of two of them:
        its words' weights (a word's weights cached after its first sight, `_learn`) and its
        pairs' weights (`_doubled[mixed + bucket]` is the weight of `pair_index`); the pairs
        inside a run of pieces are exactly the pairs of its tokens read in order. Also the two
        running sums."""
        found = list(map(self._words.__getitem__, tokens))
        weight = list(itertools.accumulate(map(_FIRST, found), initial=carry.weight))
        features = list(itertools.accumulate(map(_SECOND, found), initial=0))
        mixed = map(operator.add, map(_FOURTH, found), map(_THIRD, found[1:]))
        values = map(self._doubled.__getitem__, mixed)
        paired = list(itertools.accumulate(values, initial=self._first_paired(carry, found[0])))
        starts = list(map(bounds.__getitem__, map(_FIRST, runs)))
        ends = list(map(bounds.__getitem__, map(_SECOND, runs)))
        at = weight.__getitem__
        totals = map(operator.sub, map(at, ends), map(at, starts))
        paired_at = paired.__getitem__
        totals = map(operator.add, totals, map(paired_at, map(operator.sub, ends, _ONES)))
        totals = map(operator.sub, totals, map(paired_at, starts))
        counted = features.__getitem__
        counts = map(operator.sub, map(counted, ends), map(counted, starts))
        counts = map(operator.add, counts, map(operator.sub, ends, starts))
        roots = map(math.sqrt, map(operator.sub, counts, _ONES))
        margins = map(operator.add, _repeat(self.bias), map(operator.truediv, totals, roots))
        return margins, weight, paired

    def _learn(self, tokens: list[bytes]) -> None:
        """Cache the word entry of each token not yet seen (`_word`), the plain ASCII words
        all at once (`_plain_words`); the cache starts over when it would grow past
        `_CACHED`."""
        words = self._words
        missing = set(tokens).difference(words)
        if not missing:
            return
        if len(words) + len(missing) > _CACHED:
            words.clear()
            missing = set(tokens)
        plain = [t for t in missing if t.isascii() and t[:1] not in _MARKER_BYTES]
        words.update(zip(plain, self._plain_words(plain), strict=True))
        for token in missing:
            if token not in words:
                words[token] = self._word(token)

    def _plain_words(self, tokens: list[bytes]) -> Iterator[_Word]:
        """`_word` of many ASCII words (no marker tokens) at once: every word's n-grams cut,
        hashed and looked up in one run of C-speed `map`s, each word's n-gram weights then
        summed by `sum` as `_word` sums them."""
        table = self._table
        buckets = list(map(_MASK.__and__, map(zlib.crc32, tokens, _repeat(_WORD_CRC))))
        padded = [b"<" + t + b">" for t in tokens]
        slices = list(map(_gram_slices, map(len, padded)))
        grams = itertools.chain.from_iterable(map(map, map(_GETITEM, padded), slices))
        hashed = map(_MASK.__and__, map(zlib.crc32, grams, _repeat(_GRAM_CRC)))
        values = list(map(table.__getitem__, hashed))
        sizes = list(map(len, slices))
        ends = list(itertools.accumulate(sizes))
        sums = map(sum, map(values.__getitem__, map(slice, [0, *ends[:-1]], ends)))
        totals = map(operator.add, map(table.__getitem__, buckets), sums)
        counts = map(operator.add, sizes, _ONES)
        parts = map(_MASK.__and__, map(operator.mul, buckets, _repeat(31)))
        return zip(totals, counts, buckets, parts, strict=True)

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
                grams = map(utf8, map(text.__getitem__, slices))
            hashed = map(zlib.crc32, grams, itertools.repeat(_GRAM_CRC))
            total += sum(map(table.__getitem__, map(_MASK.__and__, hashed)))
            count += len(slices)
        return (total, count, bucket, (bucket * 31) & _MASK)

    def _line(self, line: str) -> tuple[tuple[bytes, ...], int]:
        """One line's tokens and word count (cached; a tuple of bytes is nothing the garbage
        collector walks)."""
        tokens, count = line_bytes(line)
        known = (tuple(tokens), count)
        if len(self._lines) >= _CACHED:
            self._lines.clear()
        self._lines[line] = known
        return known

    def flagged(self, scored: list[Scored], kind: str = "prose") -> list[tuple[int, float, str]]:
        """The flagged spans of `scored` (line, probability, span) found in text of `kind`
        (`detector_kinds.KINDS`: its threshold), the highest per first line; a block of lines
        counts only where none of its own lines is flagged."""
        threshold = self.thresholds.get(kind, self.threshold)
        hits = [s for s in scored if s[2] >= threshold]
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


def _sigmoid_of(margins: Iterable[float]) -> list[float]:
    """`_sigmoid` of each margin, by C-speed `map`s."""
    clamped = map(max, map(min, margins, _repeat(60.0)), _repeat(-60.0))
    exps = map(math.exp, map(operator.neg, clamped))
    return list(map(operator.truediv, _repeat(1.0), map(operator.add, _repeat(1.0), exps)))


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
        if token[:1] not in MARKER_TOKENS:
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


@functools.cache
def _numpy_margins() -> _Margins | None:
    """`detector_numpy.margins` when numpy can be imported, else None (numpy is an optional
    extra, imported here on first use with a long text so a short scan never pays for it)."""
    try:
        from rubricate.judge.detector_numpy import margins
    except ImportError:
        return None
    return margins


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the garbage collector (if it runs) for the duration; nothing else changes."""
    running = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if running:
            gc.enable()


@functools.cache
def _gram_slices(size: int) -> tuple[slice, ...]:
    """The slices of a padded word of this length that are its 3-grams, then its 4-grams."""
    return tuple(slice(i, i + n) for n in (3, 4) for i in range(size - n + 1))
