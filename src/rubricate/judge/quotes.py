"""Verification of the judge's evidence quotes against the text it was shown (pure: no I/O).

A quote counts only when it appears verbatim inside one untrusted field and carries words of
its own (DESIGN.md §7, README.md "The LLM judge").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

from rubricate.judge.scan import scan_injection

MIN_QUOTE_CHARS = 12
"""A quote shorter than this (after collapsing whitespace) proves nothing."""
MIN_OWN_WORDS = 2
"""A quote needs at least this many distinct words that are neither rubric text nor common."""
MIN_OWN_CHARS = 10
"""... and those words together need at least this many characters."""
COMMON_WORDS = frozenset(
    {
        "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "do", "does", "for",
        "from", "has", "have", "if", "in", "is", "it", "its", "no", "not", "of", "on", "or", "so",
        "than", "that", "the", "their", "then", "there", "these", "this", "those", "to", "was",
        "we", "were", "will", "with", "you",
    }
)  # fmt: skip
"""Words too common to prove anything on their own."""
_WORD = re.compile(r"\w+")
_Trigram = tuple[str, str, str]


@dataclass(frozen=True)
class Evidence:
    """What the model may quote: each untrusted field as shown, and the trusted prompt text."""

    fields: tuple[str, ...] = ()
    """Each quotable field, whitespace-collapsed, in its as-shown and marker-free forms."""
    trusted: frozenset[_Trigram] = field(default=frozenset(), repr=False)
    """Three-word runs of the trusted prompt (instructions, rubric, anchors)."""


def collapse(text: str) -> str:
    """Runs of whitespace as one space, trimmed."""
    return " ".join(text.split())


def without_markers(text: str) -> str:
    """Each line with one leading diff marker (`+`, `-` or a space) removed; no line dropped."""
    return "\n".join(
        line[1:] if line[:1] in ("+", "-", " ") else line for line in text.splitlines()
    )


def build_evidence(shown: Iterable[str], trusted_text: str) -> Evidence:
    """The evidence of a prompt from its quotable field texts and its trusted text."""
    fields: list[str] = []
    for text in shown:
        if text.strip():
            fields += forms(text)
    return Evidence(tuple(fields), frozenset(_trigrams(words(trusted_text))))


def forms(text: str) -> tuple[str, ...]:
    """The forms in which text is compared: whitespace-collapsed, as given and with each line's
    diff marker removed (one form when they agree)."""
    return tuple(dict.fromkeys((collapse(text), collapse(without_markers(text)))))


def long_enough(quote: str) -> bool:
    """True when the quote, whitespace-collapsed, has at least `MIN_QUOTE_CHARS` characters."""
    return len(collapse(quote)) >= MIN_QUOTE_CHARS


def appears_in(quote: str, fields: Iterable[str]) -> bool:
    """True when a form of `quote` stands verbatim inside one of `fields` (each already in
    `forms`): the one rule for what "verbatim in the text shown" means."""
    quoted = forms(quote)
    return any(form in text for text in fields for form in quoted)


def verified_quotes(quotes: Iterable[str], evidence: Evidence) -> tuple[str, ...]:
    """The quotes that appear verbatim in one field of `evidence` and carry words of their own."""
    return tuple(q for q in quotes if _is_evidence(q, evidence))


def words(text: str) -> list[str]:
    """The words of `text`, NFKC-normalised and case-folded."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def own_words(quote: str, trusted: frozenset[_Trigram]) -> set[str]:
    """The quote's distinct words outside three-word runs of trusted text, common words left out."""
    found = words(quote)
    covered = [False] * len(found)
    for index, trigram in enumerate(_trigrams(found)):
        if trigram in trusted:
            covered[index : index + 3] = [True, True, True]
    return {w for w, c in zip(found, covered, strict=True) if not c and w not in COMMON_WORDS}


def _is_evidence(quote: str, evidence: Evidence) -> bool:
    if not long_enough(quote) or not _substantive(quote, evidence.trusted):
        return False
    if scan_injection(quote, "quote"):
        return False
    return appears_in(quote, evidence.fields)


def _substantive(quote: str, trusted: frozenset[_Trigram]) -> bool:
    own = own_words(quote, trusted)
    return len(own) >= MIN_OWN_WORDS and sum(len(w) for w in own) >= MIN_OWN_CHARS


def _trigrams(found: list[str]) -> list[_Trigram]:
    return [(found[i], found[i + 1], found[i + 2]) for i in range(len(found) - 2)]
