"""Prompt-injection scan and hidden-content stripping of untrusted text (pure: no I/O).

The scan runs independently of the judge: every hit is a `Finding` for the report, whatever
the model later does. `strip_hidden` removes what a human reader of the PR would not see, so
the model is never fed text that a reviewer cannot audit.
"""

from __future__ import annotations

import bisect
import re
import unicodedata

from rubricate.evidence.report_model import Finding, Severity
from rubricate.evidence.snapshot import Snapshot
from rubricate.judge.budget import exclusion_reason
from rubricate.judge.scan_rules import (
    CONFUSABLES,
    CONTROL,
    DATA_FILE_SUFFIXES,
    HIDDEN_ELEMENT,
    HTML_COMMENT,
    INVISIBLE,
    MD_COMMENT,
    RULES,
    SUSPICIOUS_WORDS,
    Rule,
)

CHECK_ID = "injection"
_NEWLINE = re.compile("\n")
_HIDDEN_BLOCKS = (
    ("<", HIDDEN_ELEMENT, "hidden HTML element"),
    ("]:", MD_COMMENT, "markdown comment"),
)
REQUEST_FIELDS = (("spec", "spec"), ("title", "PR title"), ("body", "PR description"))


def strip_hidden(text: str) -> str:
    """Remove hidden HTML comments and elements, markdown comments, invisible and control chars."""
    if "<!--" in text:
        text = HTML_COMMENT.sub("", text)
    if "<" in text:
        text = HIDDEN_ELEMENT.sub("", text)
    if "]:" in text:
        text = MD_COMMENT.sub("", text)
    text = CONTROL.sub("", text)
    return text if text.isascii() else INVISIBLE.sub("", text)


def scan_injection(text: str, where: str) -> list[Finding]:
    """Every injection pattern found in `text`; `where` (a path or field name) is `Finding.path`."""
    findings = _hidden_findings(text, where)
    is_data_file = where.lower().endswith(DATA_FILE_SUFFIXES)
    visible = text if text.isascii() else _plain_latin(text)
    lowered = visible.lower()
    lines = _LineIndex(visible)
    for rule in RULES:
        if (rule.in_data_files or not is_data_file) and any(w in lowered for w in rule.triggers):
            findings += _rule_findings(rule, visible, where, lines)
    return sorted(findings, key=lambda f: f.line or 0)


def _plain_latin(text: str) -> str:
    """Text as the rules read it: invisible characters dropped, NFKC-normalised (fullwidth and
    mathematical letters become ASCII), and Cyrillic or Greek look-alikes mapped to Latin."""
    plain = unicodedata.normalize("NFKC", INVISIBLE.sub("", text))
    return plain.translate(CONFUSABLES)


def scan_lines(lines: list[tuple[int, str]], where: str) -> list[Finding]:
    """Scan numbered lines (such as the added lines of a patch), keeping their line numbers."""
    numbers = [number for number, _text in lines]
    joined = "\n".join(line for _number, line in lines)
    return [_at_line(f, numbers[(f.line or 1) - 1]) for f in scan_injection(joined, where)]


def scan_snapshot(snapshot: Snapshot) -> list[Finding]:
    """Scan the spec, the PR title and body, and every changed file the judge could be shown."""
    findings: list[Finding] = []
    for attribute, where in REQUEST_FIELDS:
        findings += scan_injection(getattr(snapshot, attribute), where)
    for change in snapshot.changes:
        for path in (change.path, change.old_path or ""):
            findings += scan_injection(path, change.path) if path else []
        if exclusion_reason(change) is not None:
            continue
        if change.patch:
            findings += scan_lines(change.added_lines(), change.path)
        elif change.content is not None:
            findings += scan_injection(change.content.decode("utf-8", "replace"), change.path)
    return findings


def _at_line(finding: Finding, line_no: int) -> Finding:
    return Finding(finding.check, finding.message, finding.path, line_no, finding.severity)


class _LineIndex:
    """Line numbers of offsets in a text, computed on first use."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._starts: list[int] = []

    def line_of(self, offset: int) -> int:
        if not self._starts:
            self._starts = [0] + [m.end() for m in _NEWLINE.finditer(self._text)]
        return bisect.bisect_right(self._starts, offset)


def _rule_findings(rule: Rule, visible: str, where: str, lines: _LineIndex) -> list[Finding]:
    """One finding per line where the rule's pattern matches."""
    found: dict[int, Finding] = {}
    for match in rule.pattern.finditer(visible):
        line_no = lines.line_of(match.start())
        if line_no not in found:
            message = f"possible prompt injection ({rule.name}): {rule.message}"
            message += f": {_excerpt(match.group(0))}"
            found[line_no] = Finding(CHECK_ID, message, where, line_no, "warning")
    return list(found.values())


def _hidden_findings(text: str, where: str) -> list[Finding]:
    found: list[Finding] = []
    if "<!--" in text:
        for match in HTML_COMMENT.finditer(text):
            body = match.group(0)[4:].removesuffix("-->").strip()
            severity: Severity = "warning" if SUSPICIOUS_WORDS.search(body) else "info"
            message = f"hidden HTML comment ({len(body)} characters) is not shown to the judge"
            found.append(Finding(CHECK_ID, message, where, _line_of(text, match.start()), severity))
    for needle, pattern, what in _HIDDEN_BLOCKS:
        if needle not in text:
            continue
        for match in pattern.finditer(text):
            message = f"{what} is not shown to the judge: {_excerpt(match.group(0))}"
            line_no = _line_of(text, match.start())
            found.append(Finding(CHECK_ID, message, where, line_no, "warning"))
    found.extend(_character_findings(text, where))
    return found


def _character_findings(text: str, where: str) -> list[Finding]:
    found: list[Finding] = []
    kinds: tuple[tuple[re.Pattern[str], str], ...] = ((CONTROL, "control or ANSI escape"),)
    if not text.isascii():
        kinds = ((INVISIBLE, "invisible or bidi"), *kinds)
    for pattern, what in kinds:
        hits = [m.start() for m in pattern.finditer(text) if m.start() or text[0] != "\ufeff"]
        if hits:
            codes = sorted({f"U+{ord(text[i]):04X}" for i in hits})[:5]
            message = f"{len(hits)} {what} character(s) ({', '.join(codes)}) removed before judging"
            found.append(Finding(CHECK_ID, message, where, _line_of(text, hits[0]), "warning"))
    return found


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _excerpt(text: str, limit: int = 60) -> str:
    flat = " ".join(INVISIBLE.sub("", text).split())
    flat = flat.replace("`", "'")
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")
