"""The format check: deliverables against their JSON Schemas, and structured files parse (pure).

Each checked unit is one outcome: a changed deliverable file (valid against its schema, or
parses when it has none), a changed JSON/YAML/TOML file outside the deliverables (parses), or
a deliverable the config (`required: true`) or the spec names that is missing from the head.
The value is the share of good outcomes; no outcome at all leaves `format_correctness` unscored.
A schema that cannot be used (it does not compile, a `$ref` names no file) is a warning on its
own deliverable's files, which count as no outcome: the change is not judged by a broken schema.
A structured file outside the deliverables that did not parse at the base either (JSON with
comments or trailing commas that its tool reads) is the repository's dialect, not the change's
defect: an info finding and no outcome. Files over 1 MiB are left to the inputs check.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rubricate.config import Config, Deliverable
from rubricate.errors import ConfigError, ParseProblem
from rubricate.evidence.deliverable_schemas import CompiledSchema, SchemaIssue, deliverable_label
from rubricate.evidence.file_kinds import glob_match, glob_regex, is_glob, structured_kind
from rubricate.evidence.results import CheckResult, Finding, check_result, short_list
from rubricate.evidence.snapshot import MAX_PARSE_BYTES, FileChange, Snapshot
from rubricate.evidence.spec import Spec
from rubricate.evidence.structured import check_syntax, json_dialect_removed, parse_structured

CHECK_ID = "format"
CRITERION = "format_correctness"
MAX_ERRORS_PER_FILE = 20
MAX_MESSAGE = 300


@dataclass
class _Tally:
    findings: list[Finding] = field(default_factory=list)
    outcomes: list[bool] = field(default_factory=list)
    valid: list[str] = field(default_factory=list)
    parsed: list[str] = field(default_factory=list)
    done: set[str] = field(default_factory=set)

    def add(
        self,
        message: str,
        path: str | None = None,
        line: int | None = None,
        severity: str = "error",
    ) -> None:
        self.findings.append(Finding(CHECK_ID, message, path, line, severity))  # type: ignore[arg-type]


def format_check(
    snapshot: Snapshot, config: Config, schemas: dict[int, CompiledSchema], spec: Spec
) -> CheckResult:
    """Validate changed deliverables, parse changed structured files, find missing deliverables."""
    tally = _Tally()
    for index, deliverable in enumerate(config.deliverables):
        _check_rule(snapshot, index, deliverable, schemas.get(index), tally)
    _check_spec_deliverables(snapshot, spec.deliverables, tally)
    for change in snapshot.changes:
        if change.path not in tally.done and not change.deleted and structured_kind(change.path):
            _check_parses(change, tally)
    value = sum(tally.outcomes) / len(tally.outcomes) if tally.outcomes else None
    return check_result(
        CHECK_ID, tally.findings, criterion=CRITERION, value=value, evidence=_evidence(tally)
    )


def _evidence(tally: _Tally) -> list[str]:
    if not tally.outcomes:
        return ["no deliverable or JSON/YAML/TOML file in the change to check"]
    lines = [f"{sum(tally.outcomes)} of {len(tally.outcomes)} format checks passed"]
    if tally.valid:
        lines.append(f"deliverables valid: {short_list(tally.valid)}")
    if tally.parsed:
        lines.append(f"files that parse: {short_list(tally.parsed)}")
    return lines


def _check_rule(
    snapshot: Snapshot, index: int, rule: Deliverable, schema: CompiledSchema | None, tally: _Tally
) -> None:
    regex = glob_regex(rule.glob)
    if not any(regex.match(path) for path in snapshot.head_paths):
        if rule.required:
            tally.add(f"required deliverable missing: no file matches {rule.glob!r}")
            tally.outcomes.append(False)
        else:
            tally.add(f"{deliverable_label(index, rule)} matches no file", severity="warning")
    for change in snapshot.changes:
        if not regex.match(change.path):
            continue
        if change.deleted:
            tally.add("a deliverable is deleted by the change", change.path, severity="warning")
        elif change.path not in tally.done:
            tally.done.add(change.path)
            _check_deliverable(change, rule, schema, tally)


def read_limit(config: Config) -> Callable[[str], int]:
    """How many bytes of a changed file to read: a deliverable's `max_bytes`, else 1 MiB."""
    rules = [(glob_regex(rule.glob), rule.max_bytes) for rule in config.deliverables]

    def limit(path: str) -> int:
        return max((size for regex, size in rules if regex.match(path)), default=MAX_PARSE_BYTES)

    return limit


def _check_deliverable(
    change: FileChange, rule: Deliverable, schema: CompiledSchema | None, tally: _Tally
) -> None:
    if change.size is not None and change.size > rule.max_bytes:
        tally.add(
            f"not validated (size): {change.size} bytes, over max_bytes {rule.max_bytes}",
            change.path,
        )
        tally.outcomes.append(False)
        return
    read_in_full = change.too_large and change.content is not None
    reason = None if read_in_full and not change.not_utf8 else change.unreadable_reason
    kind = structured_kind(change.path)
    if schema is None and kind is None and (reason is None or change.binary):
        tally.outcomes.append(True)
        tally.valid.append(change.path)
        return
    if reason is not None:
        tally.add(f"deliverable is {reason}; not validated", change.path)
        tally.outcomes.append(False)
        return
    try:
        parsed = parse_structured(kind or "json", change.text or "", change.path)
    except ParseProblem as problem:
        tally.add(problem.message, change.path, problem.line)
        tally.outcomes.append(False)
        return
    if schema is None:
        tally.outcomes.append(True)
        tally.parsed.append(change.path)
        return
    try:
        errors = schema.issues(parsed.data)
    except ConfigError as problem:
        tally.add(f"not validated: {problem}", change.path, severity="warning")
        return
    for issue in errors[:MAX_ERRORS_PER_FILE]:
        tally.add(_issue_message(issue), change.path, parsed.line_of(issue.path))
    if len(errors) > MAX_ERRORS_PER_FILE:
        tally.add(f"... and {len(errors) - MAX_ERRORS_PER_FILE} more schema errors", change.path)
    tally.outcomes.append(not errors)
    if not errors:
        tally.valid.append(change.path)


def _issue_message(issue: SchemaIssue) -> str:
    text = " ".join(issue.message.split())
    if len(text) > MAX_MESSAGE:
        text = text[: MAX_MESSAGE - 3] + "..."
    return f"{issue.pointer}: {text}"


def _check_spec_deliverables(snapshot: Snapshot, named: Sequence[str], tally: _Tally) -> None:
    for name in named:
        if not _present(name, snapshot.head_paths):
            tally.add(f"the spec names deliverable {name!r}, but the head has no such file")
            tally.outcomes.append(False)


def _present(name: str, paths: frozenset[str]) -> bool:
    if not is_glob(name):
        return name in paths
    return any(glob_match(name, path) for path in paths)


def _broken_at_base(change: FileChange, kind: str, problem: ParseProblem) -> bool:
    """True when the head's error is the base's, not the change's: the base was not empty and
    did not parse either (a dialect its tool reads), and a JSON head parses once comments and
    trailing commas are dropped (the JSON-with-comments dialect), a YAML or TOML head's error
    is on no line the change adds."""
    base = change.base_text
    if base is None or not base.strip() or check_syntax(kind, base) is None:
        return False
    if kind == "json":
        return check_syntax(kind, json_dialect_removed(change.text or "")) is None
    added = {number for number, _ in change.added}
    return problem.line is not None and problem.line not in added


def _check_parses(change: FileChange, tally: _Tally) -> None:
    reason = change.unreadable_reason
    kind = structured_kind(change.path) or "json"
    if change.symlink or change.submodule:
        return
    if change.too_large:
        return  # the inputs check lists it: size-checked, not parsed
    if reason is not None:
        tally.add(f"{kind.upper()} file is {reason}", change.path)
        tally.outcomes.append(False)
        return
    problem = check_syntax(kind, change.text or "")
    tally.done.add(change.path)
    if problem is not None and _broken_at_base(change, kind, problem):
        message = (
            f"{problem.message} (it did not parse at the base either: not this change's doing)"
        )
        tally.add(message, change.path, problem.line, severity="info")
        return
    tally.outcomes.append(problem is None)
    if problem is None:
        tally.parsed.append(change.path)
    else:
        tally.add(problem.message, change.path, problem.line)
