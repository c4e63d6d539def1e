"""The judge's reports of text addressed to it, checked against what it was shown (pure: no I/O).

With its judgment the judge lists passages of the untrusted data that address it (the reviewer,
the grader, an AI model reading the text) instead of belonging to the deliverable: instructions
unrelated to the change's own purpose, tasks planted for whoever reads the text, claims or
requests about the score (`reply_schema.REPORT_KEY`). A report counts only when it is a
sentence (`MIN_REPORT_WORDS` words with letters) and stands verbatim in a field the reporting
call was shown, by the quote check's rule (`quotes.appears_in`); then it is an `injection`
warning at that field and line, with the same effect as a scan flag: no quote lifts the evidence
cap in the calls that showed the field. A passage that stands both in the spec (shown in every
call) and in a field of the PR's author (title, description, files) is credited to the latter;
the spec is the text of the linked issues, which anyone may open, so a passage only there counts
too. A report not in the text is dropped and counted in the judge's notes, never a failure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rubricate.evidence.results import Finding
from rubricate.judge.quotes import appears_in, collapse, forms, long_enough, without_markers
from rubricate.judge.scan import CHECK_ID, REQUEST_FIELDS, excerpt
from rubricate.judge.scripts import UNSPACED, unspaced_pairs

RULE = "judge"
"""The finding's rule: the judge, not the scan, found it."""
MESSAGE = (
    "the judge reported this text as addressed to the reviewer, not part of the deliverable:"
    " {quote}; it may be a prompt injection: review the judge's scores"
)
NOT_FOUND_NOTE = (
    "the judge reported {count} passage(s) as addressed to the reviewer that are not in the text"
    " it was shown, too short to locate, or over the limits: ignored"
)
MALFORMED_NOTE = (
    "the judge gave {count} report(s) of text addressed to the reviewer in another shape than"
    " a list of strings or under a misspelled key: ignored"
)
MIN_REPORT_WORDS = 2
"""A note to a reader is a sentence: a passage needs at least this many words with letters (in
a script written without spaces, character pairs, as the injection detector reads them)."""
_EXCERPT_CHARS = 120
_SPEC = dict(REQUEST_FIELDS)["spec"]
_LETTER = re.compile(r"[^\W\d_]")
_RUN = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class ShownText:
    """One untrusted field as the judge was shown it, named as the injection scan names it."""

    where: str
    text: str
    raw: str = ""
    """The text before hidden content was stripped, whose lines the scan reports."""
    lines: tuple[int, ...] = ()
    """For a patch, the head file's line at each line of `raw`; empty: `raw`'s own lines."""


@dataclass(frozen=True)
class Report:
    """A verified report: the passage (whitespace-collapsed), its field or file, and its line."""

    quote: str
    where: str
    line: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """A JSON shape for the cache."""
        return {"quote": self.quote, "where": self.where, "line": self.line}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Report:
        """The inverse of `as_dict` (KeyError or TypeError if bad)."""
        quote, where, line = data["quote"], data["where"], data["line"]
        if not (isinstance(quote, str) and isinstance(where, str)):
            raise TypeError("a report's quote and where must be strings")
        if line is not None and (isinstance(line, bool) or not isinstance(line, int)):
            raise TypeError("a report's line must be a whole number or null")
        return cls(quote, where, line)

    def finding(self) -> Finding:
        """The reviewers' warning, located at the field or file and line."""
        message = MESSAGE.format(quote=excerpt(self.quote, _EXCERPT_CHARS))
        return Finding(CHECK_ID, message, self.where, self.line, "warning", rule=RULE)


def verify(quotes: Iterable[str], shown: Sequence[ShownText]) -> tuple[tuple[Report, ...], int]:
    """The reports found verbatim in one field of `shown` (what the reporting call was shown),
    and how many were not."""
    found: list[Report] = []
    missing = 0
    for quote in quotes:
        report = _located(quote, shown)
        if report is None:
            missing += 1
        else:
            found.append(report)
    return tuple(dict.fromkeys(found)), missing


def shows_any(shown: Iterable[ShownText], reports: Iterable[Report]) -> bool:
    """True when a call that was shown `shown` saw the field of one of `reports`."""
    fields = {report.where for report in reports}
    return any(item.where in fields for item in shown)


def _located(quote: str, shown: Sequence[ShownText]) -> Report | None:
    """The passage at the first field that holds it, the spec last."""
    if not (long_enough(quote) and _is_sentence(quote)):
        return None
    for item in sorted(shown, key=lambda item: item.where == _SPEC):
        if appears_in(quote, forms(item.text)):
            return Report(collapse(quote), item.where, _line(quote, item))
    return None


def _is_sentence(quote: str) -> bool:
    """True when the passage holds at least `MIN_REPORT_WORDS` words with letters."""
    runs = [run for run in _RUN.findall(quote) if _LETTER.search(run)]
    found = sum(len(unspaced_pairs(run)) if UNSPACED.search(run) else 1 for run in runs)
    return found >= MIN_REPORT_WORDS


def _line(quote: str, item: ShownText) -> int | None:
    """The line where the passage starts in the raw text (in the head file for a patch); when
    hidden text split it there, its line in the text as shown, which is close."""
    patterns = [
        re.compile(r"\s+".join(re.escape(word) for word in form.split(" ")))
        for form in forms(quote)
    ]
    for text in (item.raw, item.text):
        for variant in dict.fromkeys((text, without_markers(text))):
            match = next(filter(None, (p.search(variant) for p in patterns)), None)
            if match is not None:
                index = variant.count("\n", 0, match.start())
                return item.lines[min(index, len(item.lines) - 1)] if item.lines else index + 1
    return None
