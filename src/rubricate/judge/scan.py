"""Prompt-injection scan of untrusted text and its hidden content (pure: no I/O).

The scan runs independently of the judge: every hit is a `Finding` for the report, whatever
the model later does. `strip_hidden` removes what a human reader of the PR would not see, so
the model is never fed text that a reviewer cannot audit. Quote verification is in
`judge/quotes.py`.
"""

from __future__ import annotations

import bisect
import itertools
import operator
import re
import unicodedata
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rubricate.evidence.results import Finding, Severity
from rubricate.judge.budget import exclusion_reason
from rubricate.judge.hidden import (
    CONFUSABLES,
    INVISIBLE,
    drop_invisible,
    hidden_strips,
    line_starts,
    strip_hidden,
)
from rubricate.judge.scan_rules import RULES, Rule
from rubricate.redaction import redact_tokens

if TYPE_CHECKING:
    from rubricate.evidence.snapshot import Snapshot
    from rubricate.judge.detector import Detector, Scored

DOC_SUFFIXES = (".md", ".markdown", ".rst", ".txt", ".adoc", ".ipynb")
DATA_FILE_SUFFIXES = (".yml", ".yaml", ".toml", ".ini", ".cfg", ".json", ".env", ".properties")

GRADER_WORDS = re.compile(
    r"\b(?:score|scores|scoring|grade|grading|rating|grader|judge|evaluator|rubric|llm|prompt|"
    r"instructions?|ai\s+(?:reviewers?|graders?|judges?|models?|assistants?|systems?))\b",
    re.IGNORECASE,
)
"""Words that make a hidden HTML comment worth a warning rather than a note."""
SUSPICIOUS_WORDS = re.compile(
    r"\b(?:ignore|disregard|instruction|prompt|system|assistant|score|grade|rating|grader|judge|"
    r"evaluator|rubric|approve|llm|ai)\b",
    re.IGNORECASE,
)
CHECK_ID = "injection"
_DEFINITIONS = frozenset({"markdown comment", "link reference definition"})
REQUEST_FIELDS = (("spec", "spec"), ("title", "PR title"), ("body", "PR description"))
_REQUEST_WHERE = frozenset(where for _attribute, where in REQUEST_FIELDS)
SMUGGLING = re.compile("[\U000e0000-\U000e007f\u202a-\u202e\u2066-\u2069\x1b]")
"""Tag characters, bidi overrides and terminal escapes: hidden text that is never innocent."""
TRIGGERS = frozenset(t for rule in RULES for t in rule.triggers)
"""Every rule's triggers: those a text does not hold are looked for once, not once a rule."""
_NUMBER = operator.itemgetter(0)
"""A numbered line's number."""
_NONE: frozenset[int] = frozenset()
"""The lines holding a trigger the text does not hold."""
__all__ = [
    "CHECK_ID",
    "REQUEST_FIELDS",
    "Part",
    "detector_findings",
    "excerpt",
    "in_order",
    "kind_of",
    "numbered",
    "rule_findings",
    "scan_injection",
    "scan_part",
    "scan_parts",
    "scan_snapshot",
    "strip_hidden",
]


def scan_injection(text: str, where: str, detector: Detector | None = None) -> list[Finding]:
    """Every injection pattern found in `text`; `where` (a path or field name) is `Finding.path`.

    With a `detector`, each span it scores at or above its threshold is a warning quoting the
    span with the detector's confidence; the rules' warnings stand beside it whatever it
    scored (a second opinion that is never overruled)."""
    detected = detector_findings(detector.scored(text), where, detector) if detector else []
    return in_order(*rule_findings(text, where), detected)


def in_order(hidden: list[Finding], ruled: list[Finding], detected: list[Finding]) -> list[Finding]:
    """The findings of one text (`rule_findings`, `detector_findings`) in the scan's order: by
    line, and on one line hidden content first, then the detector, then the rules."""
    return sorted(hidden + detected + ruled, key=lambda f: f.line or 0)


def rule_findings(text: str, where: str) -> tuple[list[Finding], list[Finding]]:
    """The findings of `text`'s hidden content, and those of the rules."""
    kind = kind_of(where)
    is_doc, is_data_file = kind == "docs", kind == "data"
    hidden = _hidden_findings(text, where, is_doc)
    findings: list[Finding] = []
    visible = _plain_latin(text)
    lowered = visible.lower()
    lines = _LineIndex(visible)
    folded = len(lowered) == len(visible)  # offsets in `lowered` are offsets in `visible`
    present = {t for t in TRIGGERS if t in lowered}
    known: dict[str, AbstractSet[int]] = dict.fromkeys(TRIGGERS.difference(present), _NONE)
    for rule in RULES:
        if is_data_file and not rule.in_data_files:
            continue
        if present.isdisjoint(rule.triggers):  # a match holds a trigger
            continue
        if folded:
            matches = _matches(rule, lowered, lines, known)
        else:
            matches = rule.pattern.finditer(visible)
        severity = rule.in_docs if is_doc else "warning"
        findings += _rule_findings(rule, matches, visible, where, lines, severity)
    return hidden, findings


def detector_findings(
    scored: list[Scored], where: str, detector: Detector, before: int = 0
) -> list[Finding]:
    """The spans the detector flagged among `scored` (those of a text with `before` lines
    before it), as warnings."""
    found = detector.flagged(scored, kind_of(where))
    message = "possible prompt injection (detector, confidence {:.2f}): {}"
    return [
        Finding(CHECK_ID, message.format(p, excerpt(s, 120)), where, n + before, "warning")
        for n, p, s in found
    ]


def kind_of(where: str) -> str:
    """The kind of text (`detector_kinds.KINDS`) a scan's `where` names: the PR's own text, a
    document, a data file, or code."""
    if where in _REQUEST_WHERE:
        return "prose"
    lowered = where.lower()
    if lowered.endswith(DOC_SUFFIXES):
        return "docs"
    return "data" if lowered.endswith(DATA_FILE_SUFFIXES) else "code"


def _rules_hit(text: str) -> bool:
    """True when any rule matches `text` (for hidden text: a reason to warn, not just note)."""
    plain = _plain_latin(text)
    lowered = plain.lower()
    return any(
        any(w in lowered for w in rule.triggers) and rule.pattern.search(plain) for rule in RULES
    )


def _plain_latin(text: str) -> str:
    """Text as the rules read it: invisible characters dropped, NFKC-normalised (fullwidth and
    mathematical letters become ASCII), and Cyrillic or Greek look-alikes mapped to Latin.

    Line by line, the ASCII lines as they are: none of this changes ASCII or crosses a line
    break, so it is the same as reading the whole text at once
    (`tests/judge/test_detector_golden.py`)."""
    if text.isascii():
        return text
    lines = text.split("\n")
    return "\n".join([line if line.isascii() else _plain_line(line) for line in lines])


def _plain_line(text: str) -> str:
    plain = drop_invisible(text)
    if not unicodedata.is_normalized("NFKC", plain):
        plain = unicodedata.normalize("NFKC", plain)
    return _CONFUSABLE.sub(lambda m: m.group(0).translate(CONFUSABLES), plain)


_CONFUSABLE = re.compile("[" + "".join(re.escape(chr(c)) for c in CONFUSABLES) + "]+")
"""Runs of look-alike letters (translating only them is much faster than the whole text)."""


def scan_lines(
    lines: list[tuple[int, str]], where: str, detector: Detector | None = None
) -> list[Finding]:
    """Scan numbered lines (such as the added lines of a patch), keeping their line numbers."""
    joined = "\n".join(line for _number, line in lines)
    return scan_part(Part(joined, where, tuple(map(_NUMBER, lines))), detector)


@dataclass(frozen=True)
class Part:
    """One text the scan of a change reads on its own: a field of the request, a path, or a
    changed file's added lines (`numbers`: their line numbers) or content."""

    text: str
    where: str
    numbers: tuple[int, ...] | None = None
    judged: bool = True
    """Scanned with the detector too (a path is read by the rules only)."""


def scan_snapshot(snapshot: Snapshot, detector: Detector | None = None) -> list[Finding]:
    """Scan the spec, the PR title and body, and every changed file the judge could be shown."""
    return [f for part in scan_parts(snapshot) for f in scan_part(part, detector)]


def scan_parts(snapshot: Snapshot) -> list[Part]:
    """The texts `scan_snapshot` reads, in the order of its findings (each scanned alone, so
    they may be scanned in any order or place: `judge.scan_processes`, `judge.scan_shares`)."""
    parts = [Part(getattr(snapshot, attribute), where) for attribute, where in REQUEST_FIELDS]
    for change in snapshot.changes:
        for path in (change.path, change.old_path or ""):
            parts += [Part(path, change.path, judged=False)] if path else []
        if exclusion_reason(change) is not None:
            continue
        if change.patch:
            numbers = tuple(map(_NUMBER, change.added))
            parts.append(Part(change.added_text, change.path, numbers))
        elif change.content is not None:
            text = change.content.decode("utf-8", "replace")
            parts.append(Part(text, change.path))
    return parts


def scan_part(part: Part, detector: Detector | None = None) -> list[Finding]:
    """The findings of one of `scan_parts`, as `scan_snapshot` gives them."""
    return numbered(part, scan_injection(part.text, part.where, detector if part.judged else None))


def numbered(part: Part, found: list[Finding]) -> list[Finding]:
    """The findings of a part's text at the lines they are on in its file."""
    if part.numbers is None:
        return found
    numbers = part.numbers
    return [_at_line(f, numbers[(f.line or 1) - 1]) for f in found]


def _at_line(finding: Finding, line_no: int) -> Finding:
    return Finding(finding.check, finding.message, finding.path, line_no, finding.severity)


class _LineIndex:
    """Line numbers of offsets in a text, computed on first use."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._starts: list[int] = []

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts(), offset)

    def starts(self) -> list[int]:
        """The offset where each line starts (line n at index n - 1)."""
        if not self._starts:
            self._starts = line_starts(self._text)
        return self._starts


WINDOW_LINES = 2
"""A rule is matched within this many lines either side of a line holding one of its triggers."""


def _matches(
    rule: Rule, lowered: str, lines: _LineIndex, known: dict[str, AbstractSet[int]] | None = None
) -> Iterable[re.Match[str]]:
    """The rule's matches in lower-cased text, looked for only around its trigger words (a
    match holds a trigger; the patterns span at most a line break or two). `known` keeps each
    trigger's lines for the next rule that has it."""
    starts = lines.starts()
    windows: list[list[int]] = []
    for line in trigger_lines(rule.triggers, lowered, starts, known):
        start = starts[max(line - WINDOW_LINES, 0)]
        after = line + WINDOW_LINES + 1
        end = starts[after] if after < len(starts) else len(lowered)
        if windows and start <= windows[-1][1]:
            windows[-1][1] = max(windows[-1][1], end)
        else:
            windows.append([start, end])
    if sum(end - start for start, end in windows) * 2 > len(lowered):
        return rule.folded.finditer(lowered)
    return itertools.chain.from_iterable(rule.folded.finditer(lowered, a, b) for a, b in windows)


def trigger_lines(
    triggers: tuple[str, ...],
    text: str,
    starts: list[int],
    known: dict[str, AbstractSet[int]] | None = None,
) -> list[int]:
    """The lines (index into `starts`, where each line of `text` begins) holding a trigger,
    found with `str.find` (far faster than a regex on long text), which skips to the next
    line after each hit; a trigger's lines already in `known` are not looked for again."""
    known = {} if known is None else known
    found: set[int] = set()
    for trigger in triggers:
        if trigger not in known:
            known[trigger] = _lines_holding(trigger, text, starts)
        found |= known[trigger]
    return sorted(found)


def _lines_holding(trigger: str, text: str, starts: list[int]) -> set[int]:
    found: set[int] = set()
    last = len(starts) - 1
    at = text.find(trigger)
    while at >= 0:
        line = bisect.bisect_right(starts, at) - 1
        found.add(line)
        at = text.find(trigger, starts[line + 1]) if line < last else -1
    return found


def _rule_findings(
    rule: Rule,
    matches: Iterable[re.Match[str]],
    visible: str,
    where: str,
    lines: _LineIndex,
    severity: Severity,
) -> list[Finding]:
    """One finding per line where the rule's pattern matches, quoting the text it matched."""
    found: dict[int, Finding] = {}
    for match in matches:
        line_no = lines.line_of(match.start())
        if line_no not in found:
            message = f"possible prompt injection ({rule.name}): {rule.message}"
            message += f": {excerpt(visible[match.start() : match.end()])}"
            found[line_no] = Finding(CHECK_ID, message, where, line_no, severity)
    return list(found.values())


def _hidden_findings(text: str, where: str, is_doc: bool) -> list[Finding]:
    """One finding per strip: what a reader cannot see is never shown to the judge either."""
    found: list[Finding] = []
    for strip in hidden_strips(text):
        severity: Severity = "info"
        if strip.what == "HTML comment":
            body = strip.text[4:].removesuffix("-->").strip()
            severity = "warning" if _rules_hit(body) or GRADER_WORDS.search(body) else "info"
            detail = f"({len(body)} characters)"
        elif strip.what.startswith("hidden <") or strip.what in _DEFINITIONS:
            suspicious = _rules_hit(strip.text) or SUSPICIOUS_WORDS.search(strip.text)
            severity = "warning" if suspicious else "info"
            detail = excerpt(strip.text)
        else:
            severity = "warning" if SMUGGLING.search(strip.text) or not is_doc else "info"
            detail = "removed"
        message = f"{strip.what} {detail} is not shown to the judge ({strip.removed} bytes)"
        found.append(Finding(CHECK_ID, message, where, strip.line, severity))
    return found


def excerpt(text: str, limit: int = 60) -> str:
    """Text quoted in a finding: on one line, invisible characters removed, GitHub-token-shaped
    strings masked, backticks as quotes (so no code span breaks), cut to `limit`."""
    flat = " ".join(redact_tokens(INVISIBLE.sub("", text)).split())
    flat = flat.replace("`", "'")
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")
