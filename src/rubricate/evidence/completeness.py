"""The completeness check: nothing stubbed, truncated or left TODO (pure: heuristics).

Its rules, their kinds and what they never flag are in docs/evidence.md (Completeness). The
value is 1 minus the penalties (0.1 a marker warning, 0.25 a stub error; at least 0); an empty
change scores 0.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from rubricate.evidence import file_kinds as kinds
from rubricate.evidence.code_lines import comment_style, in_comment, python_tree
from rubricate.evidence.markers import (
    MARKER_HINTS,
    PYTHON_UNIMPLEMENTED,
    UNIMPLEMENTED,
    Rewraps,
    certain_marker,
    marker_in,
    placeholder_in,
)
from rubricate.evidence.python_stubs import (
    STUB_BODY,
    in_method,
    in_nested_function,
    stub_functions,
)
from rubricate.evidence.results import CheckResult, Finding, check_result, short_list
from rubricate.evidence.snapshot import FileChange, Snapshot
from rubricate.evidence.spec import ChecklistItem, Spec, change_vocabulary, item_covered
from rubricate.evidence.truncation import loses_newline, open_structure

CHECK_ID = "completeness"
CRITERION = "completeness"
MARKER_PENALTY = 0.1
DEFECT_PENALTY = 0.25
CHECKLIST_WEIGHT = 0.6
MAX_FINDINGS_PER_FILE = 10


@dataclass
class _Tally:
    findings: list[Finding] = field(default_factory=list)
    penalty: float = 0.0
    certain_penalty: float = 0.0

    def at(
        self,
        change: FileChange,
        line: int | None,
        penalty: float,
        message: str,
        severity: str = "warning",
        *,
        certain: bool,
        rule: str,
    ) -> None:
        """Add a finding located in a changed file."""
        self.add(penalty, message, change.path, line, severity, certain=certain, rule=rule)

    def add(
        self,
        penalty: float,
        message: str,
        path: str | None,
        line: int | None,
        severity: str,
        *,
        certain: bool,
        rule: str,
    ) -> None:
        self.penalty += penalty
        self.certain_penalty += penalty if certain else 0.0
        if not certain and severity == "error":
            severity = "warning"  # a note is never an error
        finding = Finding(CHECK_ID, message, path, line, severity, certain, rule)  # type: ignore[arg-type]
        self.findings.append(finding)


def completeness_check(snapshot: Snapshot, spec: Spec) -> CheckResult:
    """Look for unfinished work in the change and for unmatched spec checklist items."""
    if not snapshot.changes:
        finding = Finding(
            CHECK_ID,
            "the change is empty: no file differs from the base",
            severity="error",
            certain=True,
            rule="empty-change",
        )
        return check_result(
            CHECK_ID, [finding], criterion=CRITERION, value=0.0, evidence=["empty change"]
        )
    tally = _Tally()
    live = [c for c in snapshot.changes if not c.deleted]
    left_out = {c.path: why for c in live if (why := kinds.not_authored(c))}
    moved = snapshot.removed_lines
    rewraps = Rewraps(moved)
    may_be_empty = _empty_by_convention(snapshot, live)
    for change in live:
        if change.path not in left_out:
            _scan_file(change, tally, moved, rewraps, change.path in may_be_empty)
    unmatched = _unmatched_items(snapshot, spec)
    for item in unmatched:
        share = CHECKLIST_WEIGHT / len(spec.open_items)
        certain = bool(item.paths)
        tally.add(
            share,
            f"spec item not addressed by the change: {item.text}",
            None,
            item.line,
            "error",
            certain=certain,
            rule="spec-item",
        )
    return check_result(
        CHECK_ID,
        tally.findings,
        criterion=CRITERION,
        value=max(0.0, 1.0 - tally.penalty),
        evidence=_evidence(len(live), left_out, spec, unmatched),
        certain_value=max(0.0, 1.0 - tally.certain_penalty),
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


def _scan_file(
    change: FileChange, tally: _Tally, moved: frozenset[str], rewraps: Rewraps, may_be_empty: bool
) -> None:
    start = len(tally.findings)
    in_test = kinds.is_test(change.path)
    _scan_added_lines(change, tally, moved, rewraps, in_test)
    text = change.text
    if text is not None:
        _check_shape(change, text, tally, may_be_empty)
        if change.path.endswith(".py"):
            _check_python(change, text, tally, in_test)
    extra = len(tally.findings) - start - MAX_FINDINGS_PER_FILE
    if extra > 0:
        del tally.findings[start + MAX_FINDINGS_PER_FILE :]
        tally.findings.append(
            Finding(CHECK_ID, f"... and {extra} more", change.path, None, "warning", False)
        )


def _scan_added_lines(
    change: FileChange, tally: _Tally, moved: frozenset[str], rewraps: Rewraps, in_test: bool
) -> None:
    lowered = change.added_text.lower()
    if not any(hint in lowered for hint in MARKER_HINTS):
        return
    prose = kinds.is_doc(change.path)
    code = comment_style(change.path) is not None and not prose
    python = change.path.endswith(".py")
    head = (change.text or "").splitlines()
    for number, text in change.added:
        if text.strip() in moved:
            continue
        shown = text.strip()[:120]
        stub = (PYTHON_UNIMPLEMENTED if python else UNIMPLEMENTED).search(text)
        if (
            stub
            and code
            and not in_comment(change, number, text, stub.start())
            and not (python and _double_or_method(change, number, in_test))
        ):
            tally.at(
                change,
                number,
                DEFECT_PENALTY,
                f"not implemented: {shown}",
                "error",
                certain=not in_test,
                rule="not-implemented",
            )
        marker = marker_in(change, number, text, code=code, prose=prose)
        following = head[number] if 0 < number < len(head) else ""
        if marker and not rewraps.take(text, following):
            tally.at(
                change,
                number,
                MARKER_PENALTY,
                f"{marker} marker: {shown}",
                certain=not in_test and certain_marker(marker, text),
                rule="todo-marker",
            )
        elif not in_test and placeholder_in(change, text):
            tally.at(
                change,
                number,
                MARKER_PENALTY,
                f"placeholder text: {shown}",
                certain=False,
                rule="placeholder-text",
            )


def _double_or_method(change: FileChange, number: int, in_test: bool) -> bool:
    """True when a Python line lies in a method (the abstract idiom) or, in a test file, in a
    function nested in another: a test double the test means never to call."""
    tree = python_tree(change.text or "")
    return in_method(tree, number) or (in_test and in_nested_function(tree, number))


def _empty_by_convention(snapshot: Snapshot, live: list[FileChange]) -> frozenset[str]:
    """The changed files that may be empty: `EMPTY_OK_NAMES`, and Terraform's standard module
    files added empty (`TERRAFORM_MODULE_FILES`), `main.tf` only beside another `.tf` file
    that holds code (one the change leaves alone is read as holding some)."""
    found: set[str] = set()
    for change in live:
        name = kinds.basename(change.path)
        if name in kinds.EMPTY_OK_NAMES or (
            name in kinds.TERRAFORM_MODULE_FILES
            and change.status == "added"
            and (name != "main.tf" or _terraform_code_beside(snapshot, change.path))
        ):
            found.add(change.path)
    return frozenset(found)


def _terraform_code_beside(snapshot: Snapshot, path: str) -> bool:
    folder = path.rpartition("/")[0]
    for other in snapshot.head_paths:
        name = kinds.basename(other)
        if (
            other.rpartition("/")[0] == folder
            and kinds.extension(other) == "tf"
            and name not in kinds.TERRAFORM_MODULE_FILES
        ):
            change = snapshot.change(other)
            if change is None or (change.text or "").strip():
                return True
    return False


def _check_shape(change: FileChange, text: str, tally: _Tally, may_be_empty: bool) -> None:
    if not text.strip():
        if _touched_content(change) and not may_be_empty:
            tally.at(
                change, None, DEFECT_PENALTY, "the file is empty", certain=False, rule="empty-file"
            )
        return
    path = change.path
    prose = kinds.is_data(path) or kinds.is_doc(path) or kinds.extension(path) in kinds.MARKUP_EXTS
    if prose or kinds.is_recorded_output(path) or not loses_newline(change):
        return  # brackets are syntax in code, configs and data: markup and prose may leave one
        # open, and golden or snapshot output records whatever a program printed
    reason = open_structure(text)
    if reason:
        message = f"truncated? the file ends without a newline {reason}"
        line = text.count("\n") + 1
        tally.at(change, line, DEFECT_PENALTY, message, certain=False, rule="truncated")


def _touched_content(change: FileChange) -> bool:
    return change.status == "added" or change.additions + change.deletions > 0


def _check_python(change: FileChange, text: str, tally: _Tally, in_test: bool) -> None:
    if change.path.endswith(".pyi") or not change.added:
        return
    tree = python_tree(text)
    if tree is None:
        try:
            ast.parse(text)
        except (SyntaxError, ValueError) as exc:
            message = f"Python file does not parse here: {getattr(exc, 'msg', exc)}"
            line = getattr(exc, "lineno", None)
            tally.at(change, line, DEFECT_PENALTY, message, certain=False, rule="does-not-parse")
        return
    if in_test or not STUB_BODY.search(change.added_text):
        return
    added = {number for number, _ in change.added}
    for node, method in stub_functions(tree):
        if node.lineno in added or node.body[-1].lineno in added:
            message = f"function {node.name}() has an empty body"
            if method:
                message = f"method {node.name}() has an empty body (a hook or no-op override?)"
            tally.at(
                change,
                node.lineno,
                DEFECT_PENALTY,
                message,
                "error",
                certain=not method,
                rule="empty-body",
            )


def _unmatched_items(snapshot: Snapshot, spec: Spec) -> list[ChecklistItem]:
    items = spec.open_items
    if not items:
        return []
    words = change_vocabulary(snapshot)
    return [item for item in items if not item_covered(item, snapshot, words)]
