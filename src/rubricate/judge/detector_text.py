"""How the injection detector reads text: its tokens and the spans it scores (pure).

`tokens_of` undoes the usual disguises before cutting words: NFKC and look-alike letters,
letter-spacing (`i g n o r e`), leetspeak (`1gn0r3`) and base64 blobs (whose decoded text is
read as well); scripts without spaces are read as character pairs. `line_bytes` gives the
same tokens as UTF-8 bytes, plain ASCII lines by a fast path. `blocks` and `pieces` cut a
text into the spans `judge.detector` scores; see its docstring and DESIGN.md section 7.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import itertools
import operator
import re
import unicodedata

from rubricate.judge.hidden import CONFUSABLES, INVISIBLE
from rubricate.judge.scripts import UNSPACED, unspaced_pairs

MIN_TOKENS = 3
MAX_SPAN_CHARS = 600
BLOCK_LINES = 6
_TOKEN = re.compile(r"[^\W_]+")
_SPACED = re.compile(r"(?<![^\W_])(?:[^\W_][ \t.\-_*|/]{1,2}){3,}[^\W_](?![^\W_])")
_SEPARATORS = re.compile(r"[ \t.\-_*|/]")
_BASE64 = re.compile(r"[A-Za-z0-9+/]{20,}={0,2}")
_LEET = str.maketrans("013457@$", "oieastas")
_DIGIT = re.compile(r"\d")
_ALPHA = re.compile(r"[^\W\d_]")
_MARKERS = re.compile(r"^[ \t]*(?:[#;>*+|-]+|//+|/\*+|\*/|<!--|-->|--|\"\"\"|''')[ \t]*")
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+")
_ESCAPES = re.compile(r"\\[nrt]")
_CUT = re.compile(r'"\s*[:,]\s*"|\\[nr]')
_CUT_BYTES = re.compile(_CUT.pattern.encode("ascii"))
"""`_CUT` on a whole text's bytes (which finds more lines, never fewer: the white space
around a separator may take in a line break there)."""
_MIXED_LATIN = re.compile(r"[a-z][^\W\d_]*[а-яёα-ω]|[а-яёα-ω][^\W\d_]*[a-z]")
_ASCII_WORDS = bytes(
    c + 32 if 65 <= c <= 90 else c if 48 <= c <= 57 or 97 <= c <= 122 else 32 for c in range(256)
)
"""ASCII letters lower-cased and digits kept, every other byte a space: `_TOKEN` on ASCII."""
_LEET_BYTES = bytes.maketrans(b"013457", b"oieast")
_BASE64_RUN = re.compile(rb"[A-Za-z0-9+/]{20}")
_MIXED_DIGITS = re.compile(rb"[a-z][0-9]|[0-9][a-z]")
"""A word mixing letters and digits, in text after `_ASCII_WORDS` (where leetspeak may be)."""
_MARKER_AFTER_BREAK = re.compile("\n" + _MARKERS.pattern.removeprefix("^"))
"""`_MARKERS` at the start of every line but the first, found from its line break (a literal
the regex engine skips to, where `^` in MULTILINE mode is tried at every character)."""
_ASCII_LINES = _ASCII_WORDS[:10] + b"\n" + _ASCII_WORDS[11:]
"""`_ASCII_WORDS` keeping line breaks, to cut a whole text's lines in one pass."""
_SPACED_ASCII = re.compile(
    rb"(?<![A-Za-z0-9])(?:[A-Za-z0-9][ \t.\-_*|/]{1,2}){3,}[A-Za-z0-9](?![A-Za-z0-9])"
)
"""`_SPACED` on ASCII text (where a word character other than `_` is `[A-Za-z0-9]`), as bytes."""
_SPACING_SHAPES = bytes(
    97 if 48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122 else 115 if c in b" \t.-_*|/" else 120
    for c in range(256)
)
"""A byte `_SPACED_ASCII` reads as a letter or digit as `a`, as a separator as `s`, any other
as `x`: a match's second and third letters are each a lone `a` between separators, so a line
it matches holds `sasas` or `sassas`."""
_BASE64_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
_SHAPES = bytes(
    98 if 65 <= c <= 90 or 97 <= c <= 122 else 48 if 48 <= c <= 57 else 32 if c != 10 else c
    for c in range(256)
)
"""Letters as `b`, digits as `0`, line breaks kept, anything else a space: a word mixing
letters and digits (`_MIXED_DIGITS`) holds `b0` or `0b`."""
_BASE64_SHAPES = bytes(98 if c in _BASE64_BYTES else 32 for c in range(256))
"""A byte `_BASE64_RUN` may hold as `b`, any other a space: a run holds `b` 20 times."""
MARKER_TOKENS = frozenset("#^")
"""The first characters of marker tokens (`#base64`, `^word`), which are not words."""


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
        elif UNSPACED.search(token):
            tokens += unspaced_pairs(token)
        elif not token.isascii() and _MIXED_LATIN.search(token):
            tokens.append(token.translate(CONFUSABLES))
        elif _DIGIT.search(token) and _ALPHA.search(token) and not token.isdigit():
            tokens.append(token.translate(_LEET))
            extra.append("leet")
        else:
            tokens.append(token)
    return tokens + [f"#{e}" for e in extra]


def utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def line_bytes(line: str) -> tuple[list[bytes], int]:
    """`line_tokens(line)` as UTF-8 bytes, and its `word_count`.

    A plain ASCII line (no escapes, no base64 run that decodes to text, no letter-spacing) is
    cut by one `bytes.translate` and `split`, leetspeak undone where a word mixes letters and
    digits; any other line is read by `line_tokens`. Both give the same tokens
    (`tests/judge/test_detector.py`)."""
    if line.isascii() and "\\" not in line:
        raw = line.encode("ascii")
        lowered = raw.translate(_ASCII_WORDS)
        tokens = lowered.split()
        if not tokens:
            return tokens, 0
        spaced = min(map(len, tokens)) == 1 and _SPACED.search(line.lower())
        blob = len(raw) >= 20 and _BASE64_RUN.search(raw) and _holds_base64_text(line)
        if not spaced and not blob:
            words = len(tokens)
            if _MIXED_DIGITS.search(lowered):
                leet = [t for t in tokens if not (t.isalpha() or t.isdigit())]
                tokens = [t.translate(_LEET_BYTES) if t in leet else t for t in tokens]
                tokens += [b"#leet"] * len(leet)
            tokens.append(b"^" + tokens[0])
            return tokens, words
    found = line_tokens(line)
    return [utf8(t) for t in found], word_count(found)


def _decoded(blob: str) -> str:
    """The text a base64 blob encodes, or '' when it is not mostly printable text."""
    try:
        raw = base64.b64decode(blob + "=" * (-len(blob) % 4), validate=True)
    except (binascii.Error, ValueError):
        return ""
    text = raw.decode("utf-8", "replace")
    if " " not in text:  # most runs are long names, whose bytes hold no space
        return ""
    printable = sum(map(str.isprintable, text))
    return text if printable >= 0.9 * len(text) else ""


def _holds_base64_text(text: str) -> bool:
    """Whether a base64 blob of `text` decodes to text (`tokens_of` reads it as well)."""
    return any(map(_decoded, _BASE64.findall(text)))


def spans(text: str) -> list[tuple[int, int, str]]:
    """The scored pieces of `text` as (first line, last line, text): lines and blocks."""
    return [(first, last, span) for first, last, span, _tokens in span_tokens(text)]


def span_tokens(text: str) -> list[tuple[int, int, str, list[str]]]:
    """The scored pieces of `text` with their tokens, as `Detector.scored` reads them: each
    line (or sentence of a long line), then each short block as its lines' tokens in order."""
    found: list[tuple[int, int, str, list[str]]] = []
    for block in blocks(text):
        parts: list[list[str]] = []
        for number, line in block:
            for piece in pieces(line):
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


def stripped_lines(text: str) -> list[str]:
    """Every line of `text`, comment and quote markers and surrounding white space off (a
    blank line is ''): `_MARKERS` on each line, run once over the whole text (from each line
    break, and on the first line)."""
    first = _MARKERS.match(text)
    unmarked = _MARKER_AFTER_BREAK.sub("\n", text[first.end() :] if first else text)
    return list(map(str.strip, unmarked.split("\n")))


def plain_lines(lines: list[str]) -> list[list[bytes] | None]:
    """The words of each line, for the lines read whole (`pieces`) that `line_bytes` would
    read by its fast path with nothing to undo (plain ASCII, no backslash, JSON cut, base64
    run, letter-spacing or word mixing letters and digits, at most `MAX_SPAN_CHARS`); None
    for every other line (which may include a few plain ones).

    The whole text is translated and cut at once, and each exception is found by one pass
    over it (`bytes.find` where a literal shows it), so a plain line costs no Python-level
    work here."""
    raw = "\n".join(lines).encode("utf-8", "surrogatepass")
    lowered = raw.translate(_ASCII_LINES)
    cut = lowered.split(b"\n")
    found: list[list[bytes] | None] = list(map(bytes.split, cut))
    sizes = list(map(len, cut))
    breaks = itertools.count()  # each line's start moves by one per line break before it
    starts = list(map(operator.add, itertools.accumulate(sizes, initial=0), breaks))
    odd = {i for i, size in enumerate(sizes) if size > MAX_SPAN_CHARS}
    if not raw.isascii():
        odd.update(i for i, line in enumerate(lines) if not line.isascii())
    odd.update(bisect.bisect_right(starts, m.start()) - 1 for m in _CUT_BYTES.finditer(raw))
    spacing = raw.translate(_SPACING_SHAPES)
    maybe = _lines_holding(spacing, b"sasas", starts) | _lines_holding(spacing, b"sassas", starts)
    odd.update(i for i in maybe if _SPACED_ASCII.search(raw, starts[i], starts[i + 1] - 1))
    shapes, runs = raw.translate(_SHAPES), raw.translate(_BASE64_SHAPES)
    for subject, literal in (
        (raw, b"\\"),
        (runs, b"b" * 20),
        (shapes, b"b0"),
        (shapes, b"0b"),
    ):
        odd.update(_lines_holding(subject, literal, starts))
    for index in odd:
        found[index] = None
    return found


def _lines_holding(subject: bytes, literal: bytes, starts: list[int]) -> set[int]:
    """The lines (`starts`: where each begins) of `subject` holding `literal`, by `bytes.find`."""
    found: set[int] = set()
    at = subject.find(literal)
    while at >= 0:
        line = bisect.bisect_right(starts, at) - 1
        found.add(line)
        at = subject.find(literal, starts[line + 1]) if line + 1 < len(starts) else -1
    return found


def blocks(text: str) -> list[list[tuple[int, str]]]:
    """Runs of consecutive non-blank lines (numbered from 1), comment and quote markers off."""
    found: list[list[tuple[int, str]]] = []
    block: list[tuple[int, str]] = []
    for number, line in enumerate(stripped_lines(text), start=1):
        if line:
            block.append((number, line))
        elif block:
            found.append(block)
            block = []
    return [*found, block] if block else found


def pieces(line: str) -> list[str]:
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
    words = [t for t in tokens if t[:1] not in MARKER_TOKENS]
    if len(words) < MIN_TOKENS and any(UNSPACED.search(t) for t in words):
        return MIN_TOKENS
    return len(words)


def _chunks(line: str) -> list[str]:
    """A long line as sentences, each cut to `MAX_SPAN_CHARS` at most."""
    out: list[str] = []
    for sentence in _SENTENCE.split(line):
        out += [sentence[i : i + MAX_SPAN_CHARS] for i in range(0, len(sentence), MAX_SPAN_CHARS)]
    return out
