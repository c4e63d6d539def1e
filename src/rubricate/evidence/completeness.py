"""The completeness check: nothing stubbed, truncated or left TODO (pure: heuristics).

Counted against completeness, on ADDED lines only:
- `TODO`, `FIXME`, `XXX` (upper case, as words), "stub"/"placeholder"/"lorem ipsum" text
  outside test files: warnings, 0.1 each;
- `NotImplementedError`, `todo!()`/`unimplemented!()`, "not implemented" throws: errors, 0.25;
- Python functions whose body is only `pass` or `...` (abstract methods, overloads, Protocols
  and `.pyi` stubs excepted): errors, 0.25;
- empty files (`__init__.py`, `.gitkeep` and the like excepted) and files that end without a
  newline in the middle of a structure (open brackets, a trailing `,`/`(`/`:`/`\\`, or a
  Python file that no longer parses): errors, 0.25;
- the spec's unchecked `- [ ]` items with no matching change: errors, 0.6 times their share.
The value is 1 minus the penalties (at least 0); an empty change scores 0. Generated, vendored
and lock files (`paths.not_authored`, the head's `.gitattributes` first) are not scanned; the
evidence names them.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rubricate.evidence import paths as kinds
from rubricate.evidence.report_model import CheckResult, Finding, check_result, short_list
from rubricate.evidence.spec import ChecklistItem, Spec, change_vocabulary, item_covered

if TYPE_CHECKING:
    from rubricate.evidence.snapshot import FileChange, Snapshot

CHECK_ID = "completeness"
CRITERION = "completeness"
MARKER_PENALTY = 0.1
DEFECT_PENALTY = 0.25
CHECKLIST_WEIGHT = 0.6
MAX_FINDINGS_PER_FILE = 10

MARKERS = re.compile(r"\b(TODO|FIXME|XXX)\b")
STUB_TEXT = re.compile(r"\b(stub(bed)?|placeholder|lorem ipsum)\b", re.I)
HTML_PLACEHOLDER = re.compile(r"placeholder\s*[=:]", re.I)
UNIMPLEMENTED = re.compile(
    r"\bNotImplementedError\b|\btodo!\(|\bunimplemented!\(|not\s+implemented(\s+yet)?[\"'`]", re.I
)
OPENERS, CLOSERS = "([{", ")]}"
DANGLING = ("&&", "||", "->", ",", "(", "[", "{", ":", "\\", "=", "+")
MARKER_HINTS = ("todo", "fixme", "xxx", "stub", "placeholder", "lorem", "implemented")
STUB_BODY = re.compile(r"^\s*(pass|\.\.\.)\s*(#.*)?$", re.M)
BODY_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")
ABSTRACT_DECORATORS = frozenset({"abstractmethod", "overload", "abstractproperty"})


@dataclass
class _Tally:
    findings: list[Finding] = field(default_factory=list)
    penalty: float = 0.0

    def at(
        self,
        change: FileChange,
        line: int | None,
        penalty: float,
        message: str,
        severity: str = "warning",
    ) -> None:
        """Add a finding located in a changed file."""
        self.add(penalty, message, change.path, line, severity)

    def add(
        self, penalty: float, message: str, path: str | None, line: int | None, severity: str
    ) -> None:
        self.penalty += penalty
        self.findings.append(Finding(CHECK_ID, message, path, line, severity))  # type: ignore[arg-type]


def completeness_check(snapshot: Snapshot, spec: Spec) -> CheckResult:
    """Look for unfinished work in the change and for unmatched spec checklist items."""
    if not snapshot.changes:
        finding = Finding(
            CHECK_ID, "the change is empty: no file differs from the base", severity="error"
        )
        return check_result(
            CHECK_ID, [finding], criterion=CRITERION, value=0.0, evidence=["empty change"]
        )
    tally = _Tally()
    live = [c for c in snapshot.changes if not c.deleted]
    left_out = {c.path: why for c in live if (why := kinds.not_authored(c))}
    for change in live:
        if change.path not in left_out:
            _scan_file(change, tally)
    unmatched = _unmatched_items(snapshot, spec)
    for item in unmatched:
        tally.add(
            0.0, f"spec item not addressed by the change: {item.text}", None, item.line, "error"
        )
    if spec.open_items:
        tally.penalty += CHECKLIST_WEIGHT * len(unmatched) / len(spec.open_items)
    value = max(0.0, 1.0 - tally.penalty)
    return check_result(
        CHECK_ID,
        tally.findings,
        criterion=CRITERION,
        value=value,
        evidence=_evidence(len(live), left_out, spec, unmatched),
    )


def _evidence(
    live: int, left_out: dict[str, str], spec: Spec, unmatched: list[ChecklistItem]
) -> list[str]:
    named = [f"{path} ({why})" for path, why in left_out.items()]
    scanned = f"{live - len(left_out)} changed files scanned for TODO, stubs, empty and "
    scanned += "truncated files" + (f"; not scanned: {short_list(named)}" if named else "")
    lines = [scanned]
    if spec.open_items:
        done = len(spec.open_items) - len(unmatched)
        lines.append(
            f"{done} of {len(spec.open_items)} open spec checklist items have a matching change"
        )
    return lines


def _scan_file(change: FileChange, tally: _Tally) -> None:
    start = len(tally.findings)
    _scan_added_lines(change, tally)
    text = change.text
    if text is not None:
        _check_shape(change, text, tally)
        if change.path.endswith(".py"):
            _check_python(change, text, tally)
    extra = len(tally.findings) - start - MAX_FINDINGS_PER_FILE
    if extra > 0:
        del tally.findings[start + MAX_FINDINGS_PER_FILE :]
        tally.findings.append(
            Finding(CHECK_ID, f"... and {extra} more", change.path, None, "warning")
        )


def _scan_added_lines(change: FileChange, tally: _Tally) -> None:
    lowered = change.added_text.lower()
    if not any(hint in lowered for hint in MARKER_HINTS):
        return
    in_test = kinds.is_test(change.path)
    for number, text in change.added:
        shown = text.strip()[:120]
        if UNIMPLEMENTED.search(text):
            tally.at(change, number, DEFECT_PENALTY, f"not implemented: {shown}", "error")
        marker = MARKERS.search(text)
        if marker:
            tally.at(change, number, MARKER_PENALTY, f"{marker.group(1)} marker: {shown}")
        elif not in_test and STUB_TEXT.search(text) and not HTML_PLACEHOLDER.search(text):
            tally.at(change, number, MARKER_PENALTY, f"stub or placeholder text: {shown}")


def _check_shape(change: FileChange, text: str, tally: _Tally) -> None:
    if not text.strip():
        if _touched_content(change) and kinds.basename(change.path) not in kinds.EMPTY_OK_NAMES:
            tally.at(change, None, DEFECT_PENALTY, "the file is empty", "error")
        return
    if kinds.is_data(change.path) or kinds.is_doc(change.path) or not _loses_newline(change):
        return
    reason = _open_structure(text)
    if reason:
        message = f"truncated? the file ends without a newline {reason}"
        tally.at(change, text.count("\n") + 1, DEFECT_PENALTY, message, "error")


def _touched_content(change: FileChange) -> bool:
    return change.status == "added" or change.additions + change.deletions > 0


def _loses_newline(change: FileChange) -> bool:
    """True when the change's last added line is the file's end and has no newline."""
    lines = change.patch.splitlines()
    return any(
        line.startswith("\\") and lines[i - 1].startswith("+") for i, line in enumerate(lines) if i
    )


def _open_structure(text: str) -> str | None:
    last = text.rstrip()
    dangling = next((end for end in DANGLING if last.endswith(end)), None)
    if dangling:
        return f"after {dangling!r}"
    depth = _bracket_depth(text)
    return f"inside {depth} open bracket(s)" if depth > 0 else None


def _bracket_depth(text: str) -> int:
    depth = 0
    quote: str | None = None
    escaped = False
    comment = False
    for index, char in enumerate(text):
        if char == "\n":
            comment, escaped, quote = False, False, (quote if quote == "`" else None)
        elif comment:
            continue
        elif quote:
            if escaped or char == "\\":
                escaped = not escaped
            elif char == quote:
                quote = None
        elif char in "\"'`":
            quote = char
        elif char == "#" or text.startswith("//", index):
            comment = True
        elif char in OPENERS:
            depth += 1
        elif char in CLOSERS:
            depth -= 1
    return depth


def _check_python(change: FileChange, text: str, tally: _Tally) -> None:
    if change.path.endswith(".pyi") or not change.added:
        return
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError) as exc:
        message = f"Python file does not parse: {getattr(exc, 'msg', exc)}"
        tally.at(change, getattr(exc, "lineno", None), DEFECT_PENALTY, message, "error")
        return
    if not STUB_BODY.search(change.added_text):
        return
    added = {number for number, _ in change.added}
    for node in _stub_functions(tree):
        if node.lineno in added or node.body[-1].lineno in added:
            message = f"function {node.name}() has an empty body"
            tally.at(change, node.lineno, DEFECT_PENALTY, message, "error")


def _stub_functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Functions whose body is only `pass` or `...`, walking statements only (fast)."""
    found: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    stack: list[Any] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.ClassDef) and _is_protocol(node):
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _empty_body(node):
            found.append(node)
        for name in BODY_FIELDS:
            stack.extend(getattr(node, name, ()))
    return sorted(found, key=lambda node: node.lineno)


def _is_protocol(node: ast.ClassDef) -> bool:
    return any(_name(base) in ("Protocol", "ABC") for base in node.bases)


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript):
        return _name(node.value)
    return node.id if isinstance(node, ast.Name) else ""


def _empty_body(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    if any(_name(d) in ABSTRACT_DECORATORS for d in node.decorator_list):
        return False
    body = node.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    if len(body) != 1:
        return False
    only = body[0]
    is_ellipsis = (
        isinstance(only, ast.Expr)
        and isinstance(only.value, ast.Constant)
        and only.value.value is ...
    )
    return isinstance(only, ast.Pass) or is_ellipsis


def _unmatched_items(snapshot: Snapshot, spec: Spec) -> list[ChecklistItem]:
    items = spec.open_items
    if not items:
        return []
    words = change_vocabulary(snapshot)
    return [item for item in items if not item_covered(item, snapshot, words)]
