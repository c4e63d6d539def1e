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
from rubricate.judge.hidden import find_hidden, strip_hidden
from rubricate.judge.scan_rules import (
    CONFUSABLES,
    DATA_FILE_SUFFIXES,
    DOC_SUFFIXES,
    GRADER_WORDS,
    INVISIBLE,
    RULES,
    SUSPICIOUS_WORDS,
    Rule,
)

CHECK_ID = "injection"
_NEWLINE = re.compile("\n")
REQUEST_FIELDS = (("spec", "spec"), ("title", "PR title"), ("body", "PR description"))
_REQUEST_WHERE = frozenset(where for _attribute, where in REQUEST_FIELDS)
SMUGGLING = re.compile("[\U000e0000-\U000e007f\u202a-\u202e\u2066-\u2069\x1b]")
"""Tag characters, bidi overrides and terminal escapes: hidden text that is never innocent."""
__all__ = ["CHECK_ID", "REQUEST_FIELDS", "scan_injection", "scan_snapshot", "strip_hidden"]


def scan_injection(text: str, where: str) -> list[Finding]:
    """Every injection pattern found in `text`; `where` (a path or field name) is `Finding.path`."""
    findings = _hidden_findings(text, where, where.lower().endswith(DOC_SUFFIXES))
    is_data_file = where.lower().endswith(DATA_FILE_SUFFIXES)
    visible = text if text.isascii() else _plain_latin(text)
    lowered = visible.lower()
    lines = _LineIndex(visible)
    is_doc = where.lower().endswith(DOC_SUFFIXES) and where not in _REQUEST_WHERE
    for rule in RULES:
        if (rule.in_data_files or not is_data_file) and any(w in lowered for w in rule.triggers):
            severity = rule.in_docs if is_doc else "warning"
            findings += _rule_findings(rule, visible, where, lines, severity)
    return sorted(findings, key=lambda f: f.line or 0)


def _rules_hit(text: str) -> bool:
    """True when any rule matches `text` (for hidden text: a reason to warn, not just note)."""
    plain = text if text.isascii() else _plain_latin(text)
    lowered = plain.lower()
    return any(
        any(w in lowered for w in rule.triggers) and rule.pattern.search(plain) for rule in RULES
    )


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


def _rule_findings(
    rule: Rule, visible: str, where: str, lines: _LineIndex, severity: Severity
) -> list[Finding]:
    """One finding per line where the rule's pattern matches, quoting the text it matched."""
    found: dict[int, Finding] = {}
    for match in rule.pattern.finditer(visible):
        line_no = lines.line_of(match.start())
        if line_no not in found:
            message = f"possible prompt injection ({rule.name}): {rule.message}"
            message += f": {_excerpt(match.group(0))}"
            found[line_no] = Finding(CHECK_ID, message, where, line_no, severity)
    return list(found.values())


def _hidden_findings(text: str, where: str, is_doc: bool) -> list[Finding]:
    """One finding per strip: what a reader cannot see is never shown to the judge either."""
    found: list[Finding] = []
    for strip in find_hidden(text)[1]:
        severity: Severity = "info"
        if strip.what == "HTML comment":
            body = strip.text[4:].removesuffix("-->").strip()
            severity = "warning" if _rules_hit(body) or GRADER_WORDS.search(body) else "info"
            detail = f"({len(body)} characters)"
        elif strip.what.startswith("hidden <") or strip.what == "markdown comment":
            suspicious = _rules_hit(strip.text) or SUSPICIOUS_WORDS.search(strip.text)
            severity = "warning" if suspicious else "info"
            detail = _excerpt(strip.text)
        else:
            severity = "warning" if SMUGGLING.search(strip.text) or not is_doc else "info"
            detail = "removed"
        message = f"{strip.what} {detail} is not shown to the judge ({strip.removed} bytes)"
        found.append(Finding(CHECK_ID, message, where, strip.line, severity))
    return found


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _excerpt(text: str, limit: int = 60) -> str:
    flat = " ".join(INVISIBLE.sub("", text).split())
    flat = flat.replace("`", "'")
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")
